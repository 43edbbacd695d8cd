// Package calfile reads calibration files by the rules of
// content.ReadCalibrations. It is its own package so that the generator of
// content/calibrations_gen.go (content/internal/gencal) reads the files as
// content does without importing content, which compiles only with the
// generated file in place.
package calfile

import (
	"bytes"
	"errors"
	"github.com/wattscale/wattscale/internal/errctx"
	"io/fs"
	"path"
	"sort"
	"strconv"
	"strings"

	"github.com/wattscale/wattscale/internal/jsonv"
	"github.com/wattscale/wattscale/model"
)

// File is one calibration file as read: its path in the file tree, its
// bytes (as published) and the calibration.
type File struct {
	Path        string
	Raw         []byte
	Calibration model.Calibration
}

// Read is content.ReadCalibrations: every *.json in dir of fsys, in name
// order, each parsed by Parse; every bad file is reported, and a folder
// with no *.json file is an error.
func Read(fsys fs.FS, dir string) ([]File, error) {
	names, err := fs.Glob(fsys, path.Join(dir, "*.json"))
	if err != nil {
		return nil, err
	}
	if len(names) == 0 {
		if _, err := fs.Stat(fsys, dir); err != nil {
			return nil, err
		}
		return nil, errors.New("no " + path.Join(dir, "*.json") + " file")
	}
	sort.Strings(names)
	return Each(len(names), func(i int) (string, []byte, error) {
		raw, err := fs.ReadFile(fsys, names[i])
		return names[i], raw, err
	})
}

// Each parses, in order, the n files that file(i) returns (a file's name
// and bytes, or an error that stands for it) and reports every bad one.
func Each(n int, file func(i int) (name string, raw []byte, err error)) ([]File, error) {
	var out []File
	var errs []error
	for i := range n {
		name, raw, err := file(i)
		if err == nil {
			var f File
			if f, err = Parse(name, raw); err == nil {
				out = append(out, f)
				continue
			}
		}
		errs = append(errs, err)
	}
	if err := errors.Join(errs...); err != nil {
		return nil, err
	}
	return out, nil
}

// Parse is the check of one file named name: strict JSON (a syntax or
// type error names the file and its line), a valid calibration, named as
// its file (without .json).
func Parse(name string, raw []byte) (File, error) {
	c, err := model.ParseCalibration(raw)
	if err != nil {
		return File{}, errctx.Wrap(name+":"+strconv.Itoa(jsonErrorLine(raw, err)), err)
	}
	if want := strings.TrimSuffix(path.Base(name), ".json"); c.Name != want {
		return File{}, errors.New(name + ":1: calibration name " + strconv.Quote(c.Name) + " does not match the file name (want " + strconv.Quote(want) + ")")
	}
	return File{Path: name, Raw: raw, Calibration: c}, nil
}

// jsonErrorLine is the line of a JSON syntax or type error, or 1 when the
// error has no position (a value out of range).
func jsonErrorLine(raw []byte, err error) int {
	je, ok := errors.AsType[*jsonv.Error](err)
	if !ok {
		return 1
	}
	off := min(max(je.Offset, 0), len(raw))
	return 1 + bytes.Count(raw[:off], []byte("\n"))
}
