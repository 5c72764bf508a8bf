package main

import (
	"flag"
	"fmt"
	"runtime/debug"

	rankgenrt "github.com/rankgen/rankgen/runtime"
)

// modulePath is rankgen's module; its version is what "rankgen version" reports.
const modulePath = "github.com/rankgen/rankgen"

// readBuildInfo is debug.ReadBuildInfo; tests replace it.
var readBuildInfo = debug.ReadBuildInfo

func init() {
	register(&command{
		name:  "version",
		short: "print rankgen's version and its generated-code version",
		long: `Version prints the version of the rankgen module this binary was built from (as "go tool
rankgen" from a module that pins it, or "go install …@version"; "(devel)" for a build inside
rankgen's own repository, with the VCS revision when Go recorded it), the Go version, and the
version of the contract between generated code and github.com/rankgen/rankgen/runtime:
generated packages record it and fail to compile against a runtime that does not support it.

Exit status: 0; 2 on usage errors.`,
		flags: func(fs *flag.FlagSet) func(*env, []string) int {
			return func(e *env, args []string) int {
				if len(args) > 0 {
					return usageFail(e, commands["version"], "version takes no arguments")
				}
				fmt.Fprintf(e.stdout, "rankgen %s\n", moduleVersion())
				fmt.Fprintf(e.stdout, "generated code version %d (runtime accepts %d to %d)\n", rankgenrt.Version, rankgenrt.MinVersion, rankgenrt.MaxVersion)
				return exitOK
			}
		},
	})
}

// moduleVersion is rankgen's module version from the build info, e.g. "v0.3.0 (go1.26.8)".
func moduleVersion() string {
	bi, ok := readBuildInfo()
	if !ok {
		return "(unknown: built without module information)"
	}
	var m *debug.Module
	if bi.Main.Path == modulePath {
		m = &bi.Main
	} else { // built inside another module's build list
		for _, d := range bi.Deps {
			if d.Path == modulePath {
				m = d
			}
		}
	}
	version := ""
	if m != nil {
		version = m.Version
		if m.Replace != nil { // a replace directive: say where the code came from
			version += " => " + m.Replace.Path
			if m.Replace.Version != "" && m.Replace.Version != "(devel)" {
				version += " " + m.Replace.Version
			}
		}
	}
	if version == "" {
		version = "(devel)"
	}
	var rev, modified string
	for _, s := range bi.Settings {
		switch s.Key {
		case "vcs.revision":
			rev = s.Value
		case "vcs.modified":
			modified = s.Value
		}
	}
	if version == "(devel)" && rev != "" {
		if len(rev) > 12 {
			rev = rev[:12]
		}
		version += " " + rev
		if modified == "true" {
			version += "+dirty"
		}
	}
	return version + " (" + bi.GoVersion + ")"
}
