package gen

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"
)

// manifestName lists, in the output folder, the files the last build
// wrote, so that the next build can remove the ones it no longer writes
// and refuse to write into a folder that holds anything else.
const manifestName = ".wattscale-site"

// Write puts the files under dir. A file whose content is unchanged is not
// rewritten (its modification time stays, which keeps browser and rsync
// caches warm). Files of the previous build that this one does not write
// are removed. A non-empty folder without a manifest is refused, so that
// "-o ." cannot clobber a checkout.
func Write(dir string, files map[string][]byte) error {
	old, err := readManifest(dir)
	if err != nil {
		return err
	}
	names := sortedKeys(files)
	for _, name := range names {
		dst := filepath.Join(dir, filepath.FromSlash(name))
		if prev, err := os.ReadFile(dst); err == nil && bytes.Equal(prev, files[name]) {
			continue
		}
		if err := os.MkdirAll(filepath.Dir(dst), 0o755); err != nil {
			return err
		}
		if err := os.WriteFile(dst, files[name], 0o644); err != nil {
			return err
		}
	}
	for _, name := range old {
		if _, ok := files[name]; ok {
			continue
		}
		dst := filepath.Join(dir, filepath.FromSlash(name))
		if err := os.Remove(dst); err != nil && !os.IsNotExist(err) {
			return err
		}
		removeEmptyParents(dir, filepath.Dir(dst))
	}
	return os.WriteFile(filepath.Join(dir, manifestName), []byte(strings.Join(names, "\n")+"\n"), 0o644)
}

// readManifest returns the previous build's file list; an absent folder or
// an empty one has none.
func readManifest(dir string) ([]string, error) {
	entries, err := os.ReadDir(dir)
	if os.IsNotExist(err) || err == nil && len(entries) == 0 {
		return nil, nil
	}
	if err != nil {
		return nil, err
	}
	raw, err := os.ReadFile(filepath.Join(dir, manifestName))
	if os.IsNotExist(err) {
		return nil, fmt.Errorf("%s is not empty and was not written by a previous build (no %s): choose another -o or empty it", dir, manifestName)
	}
	if err != nil {
		return nil, err
	}
	var out []string
	for _, l := range strings.Split(string(raw), "\n") {
		if l = strings.TrimSpace(l); l != "" && !strings.Contains(l, "..") && !filepath.IsAbs(l) {
			out = append(out, l)
		}
	}
	return out, nil
}

func removeEmptyParents(root, dir string) {
	root = filepath.Clean(root)
	for d := filepath.Clean(dir); d != root && strings.HasPrefix(d, root); d = filepath.Dir(d) {
		if err := os.Remove(d); err != nil {
			return
		}
	}
}
