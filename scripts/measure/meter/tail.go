package meter

import (
	"errors"
	"fmt"
	"io"
	"io/fs"
	"os"
	"sync"
	"time"
)

// tailer follows the stage file: a named pipe is read as lines arrive; a
// regular file is polled for lines appended after the recording started
// (write it with ">>", one line per write).
type tailer struct {
	f    *os.File
	fifo bool
	lw   *lineWriter
	quit chan struct{}
	wg   sync.WaitGroup
}

const tailPoll = 20 * time.Millisecond

func startTail(path string, ev *events, now func() time.Time) (*tailer, error) {
	fi, err := os.Stat(path)
	switch {
	case errors.Is(err, fs.ErrNotExist):
		f, cerr := os.OpenFile(path, os.O_CREATE|os.O_WRONLY, 0o644)
		if cerr != nil {
			return nil, fmt.Errorf("measure: -stage-file: %w", cerr)
		}
		f.Close()
		fi, err = os.Stat(path)
	}
	if err != nil {
		return nil, fmt.Errorf("measure: -stage-file: %w", err)
	}
	t := &tailer{lw: &lineWriter{ev: ev, now: now, source: "file"}, quit: make(chan struct{})}
	switch {
	case fi.Mode()&fs.ModeNamedPipe != 0:
		// Opened read-write so that the open does not wait for a writer and
		// the pipe does not report end-of-file between writers.
		t.fifo = true
		t.f, err = os.OpenFile(path, os.O_RDWR, 0)
	case fi.Mode().IsRegular():
		t.f, err = os.Open(path)
		if err == nil {
			_, err = t.f.Seek(0, io.SeekEnd)
		}
	default:
		return nil, fmt.Errorf("measure: -stage-file %s is neither a regular file nor a named pipe", path)
	}
	if err != nil {
		return nil, fmt.Errorf("measure: -stage-file: %w", err)
	}
	t.wg.Add(1)
	go t.loop()
	return t, nil
}

func (t *tailer) loop() {
	defer t.wg.Done()
	buf := make([]byte, 32<<10)
	for {
		n, err := t.f.Read(buf)
		if n > 0 {
			t.lw.Write(buf[:n])
		}
		if err == nil {
			continue
		}
		if t.fifo || !errors.Is(err, io.EOF) {
			return // closed by stop, or a read error
		}
		// Regular file at its end: a file rewritten from the start is
		// followed from its new start.
		if fi, serr := t.f.Stat(); serr == nil {
			if off, _ := t.f.Seek(0, io.SeekCurrent); fi.Size() < off {
				t.f.Seek(0, io.SeekStart)
			}
		}
		select {
		case <-t.quit:
			return
		case <-time.After(tailPoll):
		}
	}
}

// stop reads what is left and closes the file; a nil tailer does nothing.
func (t *tailer) stop() {
	if t == nil {
		return
	}
	if t.fifo {
		// Let lines already in the pipe arrive, then unblock the read.
		time.Sleep(2 * tailPoll)
		t.f.Close()
		t.wg.Wait()
	} else {
		close(t.quit)
		t.wg.Wait()
		// One last pass for lines written just before the end.
		buf := make([]byte, 32<<10)
		for {
			n, err := t.f.Read(buf)
			if n > 0 {
				t.lw.Write(buf[:n])
			}
			if err != nil || n == 0 {
				break
			}
		}
		t.f.Close()
	}
	t.lw.flush()
}
