package main

import (
	"runtime/debug"
	"testing"
)

func TestModuleVersion(t *testing.T) {
	defer func() { readBuildInfo = debug.ReadBuildInfo }()
	for _, tc := range []struct {
		name string
		bi   *debug.BuildInfo
		want string
	}{
		{"installed", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: modulePath, Version: "v1.2.3"}}, "v1.2.3 (go1.26.8)"},
		{"tool with replace", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: modulePath, Version: "v0.0.0",
			Replace: &debug.Module{Path: "../rankgen", Version: "(devel)"}}}, "v0.0.0 => ../rankgen (go1.26.8)"},
		{"dependency", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: "example.com/app"},
			Deps: []*debug.Module{{Path: "golang.org/x/tools", Version: "v0.52.0"}, {Path: modulePath, Version: "v1.0.0",
				Replace: &debug.Module{Path: "example.com/fork", Version: "v1.0.1"}}}}, "v1.0.0 => example.com/fork v1.0.1 (go1.26.8)"},
		{"devel with vcs", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: modulePath, Version: "(devel)"},
			Settings: []debug.BuildSetting{{Key: "vcs.revision", Value: "0123456789abcdef0123"}, {Key: "vcs.modified", Value: "true"}}}, "(devel) 0123456789ab+dirty (go1.26.8)"},
		{"go run", &debug.BuildInfo{GoVersion: "go1.26.8", Main: debug.Module{Path: modulePath}}, "(devel) (go1.26.8)"},
	} {
		readBuildInfo = func() (*debug.BuildInfo, bool) { return tc.bi, true }
		if got := moduleVersion(); got != tc.want {
			t.Errorf("%s: got %q, want %q", tc.name, got, tc.want)
		}
	}
	readBuildInfo = func() (*debug.BuildInfo, bool) { return nil, false }
	if got, want := moduleVersion(), "(unknown: built without module information)"; got != want {
		t.Errorf("no build info: got %q, want %q", got, want)
	}
}
