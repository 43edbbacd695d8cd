//go:build !unix

package meter

import (
	"os"
	"os/exec"
)

// ownGroup does nothing where process groups do not exist.
func ownGroup(cmd *exec.Cmd) {}

// signalGroup kills the process itself where process groups do not exist.
func signalGroup(cmd *exec.Cmd, kill bool) {
	if cmd.Process != nil {
		_ = cmd.Process.Kill()
	}
}

// sigterm asks the measured command to stop (a kill where SIGTERM does not exist).
var sigterm = os.Kill
