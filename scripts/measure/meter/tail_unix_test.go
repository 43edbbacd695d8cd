//go:build unix

package meter

import (
	"context"
	"path/filepath"
	"strings"
	"syscall"
	"testing"
)

func TestStageFileNamedPipe(t *testing.T) {
	fakeSMI(t)
	fifo := filepath.Join(t.TempDir(), "stages")
	if err := syscall.Mkfifo(fifo, 0o600); err != nil {
		t.Fatal(err)
	}
	script := `echo "wattscale:stage load tokens=5" > "$WATTSCALE_STAGE_FILE"; sleep 0.2
echo "wattscale:stage train" > "$WATTSCALE_STAGE_FILE"; sleep 0.3`
	rec, err := Record(context.Background(), Options{Command: []string{"sh", "-c", script}, SMI: SMI{IntervalMS: 50}, StageFile: fifo})
	if err != nil {
		t.Fatal(err)
	}
	s := Summarize(rec, nil)
	var names []string
	for _, st := range s.Stages {
		if st.Name != "prerun" {
			names = append(names, st.Name)
		}
	}
	if got := strings.Join(names, ","); got != "load,train" {
		t.Fatalf("stages = %s, want load,train from the named pipe", got)
	}
	load, train := s.Stages[len(s.Stages)-2], s.Stages[len(s.Stages)-1]
	if load.Tokens != 5 || load.DurationS < 0.1 || train.DurationS < 0.15 {
		t.Errorf("load %g s with %g tokens, train %g s; want about 0.2 s with 5 tokens, about 0.3 s", load.DurationS, load.Tokens, train.DurationS)
	}
}
