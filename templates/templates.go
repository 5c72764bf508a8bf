// Package templates holds the Lua templates that generator/luaemit renders into a board's
// scripts, one script per operation. The templates are text/template files embedded in the
// binary; lib.lua.tmpl defines the pieces every script shares.
//
// go-redis runs a script by the SHA-1 of its exact text, so any change here changes every
// generated script's SHA: the golden tests of generator/luaemit show such changes in review.
package templates

import (
	"embed"
	"text/template"
)

//go:embed *.lua.tmpl
var files embed.FS

// Parse parses every template with the given functions.
func Parse(funcs template.FuncMap) (*template.Template, error) {
	return template.New("lua").Funcs(funcs).ParseFS(files, "*.lua.tmpl")
}
