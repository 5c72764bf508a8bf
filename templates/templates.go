// Package templates holds the Lua templates that generator/luaemit renders into the layout's
// part of a board's library: the part's own head (lib.lua.tmpl's "library": what the layout's
// functions share that depends on the layout; what does not is the runtime's head.lua) and
// one function body per operation. The templates are text/template files embedded in the
// binary.
//
// A library's name carries the hash of its exact text, so any change here gives every board
// a new library to load: the golden tests of generator/luaemit show such changes in review.
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
