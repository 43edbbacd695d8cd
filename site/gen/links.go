package gen

import (
	"errors"
	"fmt"
	"html"
	"net/url"
	"path"
	"regexp"
	"sort"
	"strings"
)

var (
	linkRE = regexp.MustCompile(`\s(?:href|src)="([^"]*)"`)
	idRE   = regexp.MustCompile(`\sid="([^"]*)"`)
)

// checkLinks checks every href and src in the HTML output: a relative link
// must name a file of the output (a directory link would not open its
// index.html from file://), and a fragment must name an id of its target
// page. Links with a scheme (https:, mailto:) are not followed. The error
// lists every broken link, by page.
func checkLinks(files map[string][]byte) error {
	ids := map[string]map[string]bool{}
	for name, data := range files {
		if !strings.HasSuffix(name, ".html") {
			continue
		}
		set := map[string]bool{}
		for _, m := range idRE.FindAllSubmatch(data, -1) {
			set[html.UnescapeString(string(m[1]))] = true
		}
		ids[name] = set
	}
	var errs []error
	for _, name := range sortedKeys(files) {
		if !strings.HasSuffix(name, ".html") {
			continue
		}
		for _, m := range linkRE.FindAllSubmatch(files[name], -1) {
			raw := html.UnescapeString(string(m[1]))
			if err := checkLink(name, raw, files, ids); err != nil {
				errs = append(errs, fmt.Errorf("%s: link %q: %w", name, raw, err))
			}
		}
	}
	sort.Slice(errs, func(i, j int) bool { return errs[i].Error() < errs[j].Error() })
	return errors.Join(errs...)
}

func checkLink(from, raw string, files map[string][]byte, ids map[string]map[string]bool) error {
	if raw == "" {
		return fmt.Errorf("empty")
	}
	if isExternal(raw) {
		return nil
	}
	u, err := url.Parse(raw)
	if err != nil {
		return err
	}
	if strings.HasPrefix(raw, "/") {
		return fmt.Errorf("absolute path: the site must work under a sub-path and from file://, so links are relative")
	}
	target := from
	if u.Path != "" {
		if strings.HasSuffix(u.Path, "/") {
			return fmt.Errorf("directory link: name the file (…/index.html) so that it opens from file://")
		}
		target = path.Join(path.Dir(from), u.Path)
		if strings.HasPrefix(target, "../") || target == ".." {
			return fmt.Errorf("leaves the site")
		}
		if _, ok := files[target]; !ok {
			return fmt.Errorf("no file %s in the output", target)
		}
	}
	if u.Fragment != "" && strings.HasSuffix(target, ".html") {
		if !ids[target][u.Fragment] {
			return fmt.Errorf("no id %q in %s", u.Fragment, target)
		}
	}
	return nil
}
