package catalog

import (
	"fmt"

	"github.com/rankgen/rankgen/generator/layout"
)

// A script's title and usage lines head its text. They name arguments as {name} and the
// repeated group as {each}; the Lua emitter renders them as ARGV positions from Args, so the
// text never restates a position.

// expiryDoc is the usage line of every write script's first arguments.
const expiryDoc = "{mode}, {ms}: expiry mode ('', 'px' or 'pxat') and its milliseconds, applied to both keys."

// tokenDoc is the usage line of every write script's exactly-once arguments.
const tokenDoc = "{token}, {window}: the call's idempotency token, and how many seconds tokens are remembered (0 = off)."

// updateDoc is a field update script's title and usage.
func updateDoc(l *layout.Layout, op Op) (title string, usage []string) {
	f := op.Field
	title = fmt.Sprintf("%s %s: %s", op.Update, f.Name, map[layout.Op]string{
		layout.OpAdd: "add a signed delta to " + f.Name,
		layout.OpMax: "keep the larger of the current and the given " + f.Name,
		layout.OpMin: "keep the smaller of the current and the given " + f.Name,
		layout.OpSet: "set " + f.Name,
	}[op.Update])
	arg := "the digit of the new value"
	if op.Update == layout.OpAdd {
		arg = "the signed delta"
	}
	missing := "A missing id starts from the zero entry."
	if op.Update == layout.OpMax || op.Update == layout.OpMin {
		missing = "A missing id takes the given " + f.Name + ", the other fields starting from the zero entry."
	}
	clock := "{clock}: the client's clock in Unix microseconds (client stamps); "
	// The reply: the new P, or the error text, and with a member prefix the new member beside
	// it (else the member is the id the caller sent); then the same of the entry before ('' when
	// the id had none).
	if op.Batch {
		reply := "P and the prior P ('' for none), or error text and ''"
		if l.HasPrefix() {
			reply = "P, member, the prior P and member ('' for none), or error text and ''s"
		}
		return title + " (batch)", []string{expiryDoc, tokenDoc, clock + "{each}: id, " + arg + " pairs.",
			missing + " Returns, per pair, " + reply + "."}
	}
	reply := "{P, prior P ('' for none)}, or {error text, ''}"
	if l.HasPrefix() {
		reply = "{P, member, prior P, prior member ('' for none)}, or {error text, '', '', ''}"
	}
	return title, []string{expiryDoc, tokenDoc, clock + "{id}, {value}: the id and " + arg + ".",
		missing + " Returns " + reply + "."}
}
