package runtime

import (
	"crypto/sha256"
	_ "embed"
	"fmt"
	"regexp"
)

// luaHead is what every generated library's functions share whatever the layout (head.lua):
// written once here, not in every generated <stem>.rankgen.lua, which holds its layout's part.
//
//go:embed head.lua
var luaHead string

// unsafeName is what a library's name may not hold: Redis wants letters, digits and underscores.
var unsafeName = regexp.MustCompile(`[^A-Za-z0-9_]`)

// ComposeLibrary returns the text of the Redis Functions library of one layout whose generated
// part (a <stem>.rankgen.lua file) is part: its first line names it <stem>_<hash> (the stem with
// every byte but letters, digits and underscores as "_", and 12 hex digits of the SHA-256 of
// this package's Lua head and the part), then LIBRARY, the name the head's register prefixes
// every function with, the head and the part. A release whose head differs gives the library
// another name, so that versions coexist on one server.
func ComposeLibrary(stem, part string) string {
	body := luaHead + "\n" + part
	safe := unsafeName.ReplaceAllString(stem, "_")
	name := fmt.Sprintf("%s_%x", safe, sha256.Sum256([]byte(body)))[:len(safe)+13]
	return "#!lua name=" + name + "\nlocal LIBRARY = '" + name + "'\n" + body
}

// NewLayoutLibrary returns the library of one layout whose generated part is part (its
// <stem>.rankgen.lua file): the text ComposeLibrary makes of it. Code generated for contract
// version 6 and later calls it; NewLibrary takes a whole library's text.
func NewLayoutLibrary(stem, part string) *Library {
	return NewLibrary(ComposeLibrary(stem, part))
}
