package main

import (
	"runtime/debug"
	"testing"
)

func TestBuildVersion(t *testing.T) {
	setting := func(kv ...string) *debug.BuildInfo {
		info := &debug.BuildInfo{}
		for i := 0; i < len(kv); i += 2 {
			info.Settings = append(info.Settings, debug.BuildSetting{Key: kv[i], Value: kv[i+1]})
		}
		return info
	}
	tests := []struct {
		name string
		info *debug.BuildInfo
		want string
	}{
		{"no build info", nil, "dev"},
		{"no revision", setting("GOOS", "js"), "dev"},
		{"clean", setting("vcs.revision", "2c9bf14aa1b2c3d4e5f60718293a4b5c6d7e8f90", "vcs.modified", "false"), "2c9bf14aa1b2"},
		{"modified", setting("vcs.revision", "2c9bf14aa1b2c3d4e5f60718293a4b5c6d7e8f90", "vcs.modified", "true"), "2c9bf14aa1b2-dirty"},
		{"short revision", setting("vcs.revision", "abc"), "abc"},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			if got := buildVersion(tt.info); got != tt.want {
				t.Errorf("buildVersion = %q, want %q", got, tt.want)
			}
		})
	}
}
