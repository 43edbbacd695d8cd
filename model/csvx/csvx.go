// Package csvx reads CSV files that start with a header row, by column
// name, and reports every problem as a *LineError that carries the file's
// line number and, where there is one, the column: what the measurement,
// validation-run, scaling and Zeus readers and the site generator share.
// Standard library only.
package csvx

import (
	"encoding/csv"
	"errors"
	"fmt"
	"io"
	"strings"
)

// LineError is a problem on one line of a CSV file.
type LineError struct {
	Line   int    // 1-based line of the file (the header is line 1)
	Column string // the column's header name; "" when the problem is not one column's
	Err    error
}

// Error reads "line 3: column gpu: MESSAGE", or "line 3: MESSAGE".
func (e *LineError) Error() string { return fmt.Sprintf("line %d: %s", e.Line, e.Detail()) }

// Detail is the message without the line: "column gpu: MESSAGE", or
// "MESSAGE", for callers that write the line their own way (FILE:LINE: …).
func (e *LineError) Detail() string {
	if e.Column != "" {
		return "column " + e.Column + ": " + e.Err.Error()
	}
	return e.Err.Error()
}

func (e *LineError) Unwrap() error { return e.Err }

// ErrEmpty is the error (inside a *LineError on line 1) for a file with no
// header.
var ErrEmpty = errors.New("empty file: the first line must be a header")

// Header says what a header must hold. The zero value accepts any
// header of distinct, non-empty names.
type Header struct {
	Required []string // columns that must be present
	Known    []string // when not nil, every column must be one of these (Required included)
	// MissingText and UnknownText word the two header errors, with %q for
	// the column: by default `missing column %q` and `unknown column %q`.
	MissingText, UnknownText string
}

// Reader reads the rows of a CSV file after its header.
type Reader struct {
	cr   *csv.Reader
	cols []string
	col  map[string]int
	last int // the line the last row started on
}

// NewReader reads and checks the header: names are trimmed (and a UTF-8
// byte-order mark dropped); an empty file, an empty or repeated name, a
// missing required or an unknown column is a *LineError on line 1.
func NewReader(r io.Reader, h Header) (*Reader, error) {
	cr := csv.NewReader(r)
	head, err := cr.Read()
	if err == io.EOF {
		return nil, &LineError{Line: 1, Err: ErrEmpty}
	}
	if err != nil {
		return nil, parseError(err, 1)
	}
	rd := &Reader{cr: cr, col: map[string]int{}, last: 1}
	known := map[string]bool{}
	for _, c := range h.Known {
		known[c] = true
	}
	for i, name := range head {
		if i == 0 {
			name = strings.TrimPrefix(name, "\ufeff")
		}
		name = strings.TrimSpace(name)
		if name == "" {
			return nil, &LineError{Line: 1, Err: fmt.Errorf("column %d has no name", i+1)}
		}
		if h.Known != nil && !known[name] {
			return nil, &LineError{Line: 1, Err: fmt.Errorf(orDefault(h.UnknownText, "unknown column %q"), name)}
		}
		if _, dup := rd.col[name]; dup {
			return nil, &LineError{Line: 1, Err: fmt.Errorf("column %q appears twice", name)}
		}
		rd.col[name] = i
		rd.cols = append(rd.cols, name)
	}
	for _, c := range h.Required {
		if _, ok := rd.col[c]; !ok {
			return nil, &LineError{Line: 1, Err: fmt.Errorf(orDefault(h.MissingText, "missing column %q"), c)}
		}
	}
	return rd, nil
}

func orDefault(s, def string) string {
	if s == "" {
		return def
	}
	return s
}

// Columns are the header's names, trimmed, in file order.
func (r *Reader) Columns() []string { return r.cols }

// Has says whether the header has the column.
func (r *Reader) Has(column string) bool {
	_, ok := r.col[column]
	return ok
}

// Next returns the next row, or io.EOF after the last one. A malformed
// line (a stray quote, a different number of fields from the header) is a
// *LineError.
func (r *Reader) Next() (Row, error) {
	rec, err := r.cr.Read()
	if err == io.EOF {
		return Row{}, io.EOF
	}
	if err != nil {
		// FieldPos is only defined after a successful Read; an error that
		// is not a *csv.ParseError (an I/O error) is put after the last row.
		return Row{}, parseError(err, r.last+1)
	}
	line, _ := r.cr.FieldPos(0)
	r.last = line
	return Row{Line: line, rec: rec, col: r.col}, nil
}

// All reads the remaining rows, each turned into a T by parse, in order;
// it stops at the first error, Next's or parse's, and returns it as is.
func All[T any](r *Reader, parse func(Row) (T, error)) ([]T, error) {
	var out []T
	for {
		row, err := r.Next()
		if err == io.EOF {
			return out, nil
		}
		if err != nil {
			return nil, err
		}
		v, err := parse(row)
		if err != nil {
			return nil, err
		}
		out = append(out, v)
	}
}

// parseError turns an encoding/csv error into a *LineError on its line.
func parseError(err error, line int) error {
	var pe *csv.ParseError
	if errors.As(err, &pe) {
		return &LineError{Line: pe.Line, Err: pe.Err}
	}
	return &LineError{Line: line, Err: err}
}

// Row is one record of the file.
type Row struct {
	Line int // the line it starts on
	rec  []string
	col  map[string]int
}

// Get is the trimmed value of a column; "" when the header lacks it.
func (r Row) Get(column string) string {
	if i, ok := r.col[column]; ok && i < len(r.rec) {
		return strings.TrimSpace(r.rec[i])
	}
	return ""
}

// Raw is the value of a column as written (not trimmed).
func (r Row) Raw(column string) string {
	if i, ok := r.col[column]; ok && i < len(r.rec) {
		return r.rec[i]
	}
	return ""
}

// Errorf is a *LineError about a column of this row ("" for the row).
func (r Row) Errorf(column, format string, args ...any) error {
	return &LineError{Line: r.Line, Column: column, Err: fmt.Errorf(format, args...)}
}

// Wrap is err as a *LineError about a column of this row ("" for the row);
// an error that already is one is returned as it is.
func (r Row) Wrap(column string, err error) error {
	var le *LineError
	if errors.As(err, &le) {
		return err
	}
	return &LineError{Line: r.Line, Column: column, Err: err}
}
