package csvx

import (
	"errors"
	"fmt"
	"io"
	"strings"
	"testing"
)

// TestHeaderErrors: every header problem is a *LineError on line 1 with
// a message naming the column.
func TestHeaderErrors(t *testing.T) {
	h := Header{Required: []string{"a", "b"}, Known: []string{"a", "b", "c"}}
	for _, c := range []struct{ in, want string }{
		{"", "line 1: empty file: the first line must be a header"},
		{"a,b,a\n", `line 1: column "a" appears twice`},
		{"a,,b\n", "line 1: column 2 has no name"},
		{"a,colour,b\n", `line 1: unknown column "colour"`},
		{"a,c\n", `line 1: missing column "b"`},
		{"a,\"b\n", "line 1: extraneous or missing \" in quoted-field"},
	} {
		_, err := NewReader(strings.NewReader(c.in), h)
		var le *LineError
		if !errors.As(err, &le) || le.Line != 1 {
			t.Errorf("%q: error %v, want a *LineError on line 1", c.in, err)
			continue
		}
		if !strings.HasPrefix(err.Error(), c.want) {
			t.Errorf("%q: %q, want %q", c.in, err, c.want)
		}
	}
	_, err := NewReader(strings.NewReader(""), h)
	if !errors.Is(err, ErrEmpty) {
		t.Errorf("empty file: %v does not wrap ErrEmpty", err)
	}
	_, err = NewReader(strings.NewReader("a\n"), Header{Required: []string{"b"}, MissingText: "needs %q"})
	if err == nil || err.Error() != `line 1: needs "b"` {
		t.Errorf("MissingText: %v", err)
	}
}

// TestRows: values by name, trimmed, a byte-order mark dropped, each row's
// line (also after a quoted field that spans lines), and typed errors for a
// ragged line and for a value a caller rejects.
func TestRows(t *testing.T) {
	in := "\ufeffname, n \n x ,1\n\"two\nlines\",2\ny,3,4\n"
	rd, err := NewReader(strings.NewReader(in), Header{Required: []string{"name", "n"}})
	if err != nil {
		t.Fatal(err)
	}
	if got := strings.Join(rd.Columns(), "|"); got != "name|n" || !rd.Has("n") || rd.Has("m") {
		t.Fatalf("columns %q", got)
	}
	r, err := rd.Next()
	if err != nil || r.Get("name") != "x" || r.Raw("name") != " x " || r.Get("n") != "1" || r.Get("absent") != "" || r.Line != 2 {
		t.Fatalf("row 1: %+v, %v", r, err)
	}
	r, err = rd.Next()
	if err != nil || r.Get("name") != "two\nlines" || r.Line != 3 {
		t.Fatalf("row 2: %+v, %v", r, err)
	}
	e := r.Errorf("n", "%q is not %s", r.Get("n"), "odd")
	if e.Error() != `line 3: column n: "2" is not odd` {
		t.Errorf("Errorf: %q", e)
	}
	if w := r.Wrap("", e); w != e {
		t.Errorf("Wrap re-wrapped a *LineError")
	}
	if w := r.Wrap("", errors.New("bad row")); w.Error() != "line 3: bad row" {
		t.Errorf("Wrap: %q", w)
	}
	_, err = rd.Next()
	var le *LineError
	if !errors.As(err, &le) || le.Line != 5 || !strings.Contains(err.Error(), "wrong number of fields") {
		t.Errorf("ragged line: %v, want a *LineError on line 5", err)
	}
}

func TestEOF(t *testing.T) {
	rd, err := NewReader(strings.NewReader("a\n1\n"), Header{})
	if err != nil {
		t.Fatal(err)
	}
	if _, err := rd.Next(); err != nil {
		t.Fatal(err)
	}
	if _, err := rd.Next(); err != io.EOF {
		t.Errorf("after the last row: %v, want io.EOF", err)
	}
}

// FuzzReader: any input gives rows or *LineError values, never a panic,
// and every row's line is within the file.
func FuzzReader(f *testing.F) {
	for _, s := range []string{"a,b\n1,2\n", "\ufeffa\n\"x\ny\"\n", "a,a\n", "", "a,\"b\n", "a,b\n1\n"} {
		f.Add(s)
	}
	f.Fuzz(func(t *testing.T, in string) {
		lines := strings.Count(in, "\n") + 1
		rd, err := NewReader(strings.NewReader(in), Header{Known: []string{"a", "b", "c"}})
		if err != nil {
			var le *LineError
			if !errors.As(err, &le) {
				t.Fatalf("header error %v is not a *LineError", err)
			}
			return
		}
		for {
			r, err := rd.Next()
			if err == io.EOF {
				return
			}
			if err != nil {
				var le *LineError
				if !errors.As(err, &le) || le.Line < 1 || le.Line > lines {
					t.Fatalf("row error %v: not a *LineError within the file's %d lines", err, lines)
				}
				return
			}
			if r.Line < 2 || r.Line > lines {
				t.Fatalf("row on line %d of a %d-line file", r.Line, lines)
			}
			_ = r.Get("a") + r.Get("b")
		}
	})
}

// TestAll: every row in order through parse; the first error, a parse
// error or a malformed line, is returned as it is and nothing else.
func TestAll(t *testing.T) {
	parseA := func(row Row) (string, error) {
		if row.Get("a") == "bad" {
			return "", row.Errorf("a", "is bad")
		}
		return row.Get("a"), nil
	}
	for _, c := range []struct{ in, want, err string }{
		{"a,b\nx,1\ny,2\n", "x y", ""},
		{"a,b\n", "", ""},
		{"a,b\nx,1\nbad,2\nz,3\n", "", "line 3: column a: is bad"},
		{"a,b\nx,1\ny\n", "", "line 3: wrong number of fields"},
	} {
		rd, err := NewReader(strings.NewReader(c.in), Header{})
		if err != nil {
			t.Fatal(err)
		}
		got, err := All(rd, parseA)
		if msg := fmt.Sprint(err); (c.err == "" && err != nil) || (c.err != "" && msg != c.err) {
			t.Errorf("All(%q) error %v, want %q", c.in, err, c.err)
		}
		if strings.Join(got, " ") != c.want {
			t.Errorf("All(%q) = %q, want %q", c.in, got, c.want)
		}
	}
}
