//go:build unix

package meter

import (
	"os/exec"
	"syscall"
)

// ownGroup starts cmd in a process group of its own: the terminal's Ctrl-C
// then reaches the measured command but not the sampler, which keeps
// recording while the command shuts down, and Stop can end the sampler
// together with any children it has.
func ownGroup(cmd *exec.Cmd) {
	cmd.SysProcAttr = &syscall.SysProcAttr{Setpgid: true}
}

// signalGroup sends SIGTERM (SIGKILL when kill) to cmd's process group.
func signalGroup(cmd *exec.Cmd, kill bool) {
	if cmd.Process == nil {
		return
	}
	sig := syscall.SIGTERM
	if kill {
		sig = syscall.SIGKILL
	}
	_ = syscall.Kill(-cmd.Process.Pid, sig)
}

// sigterm asks the measured command to stop.
var sigterm = syscall.SIGTERM
