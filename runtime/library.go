package runtime

import (
	"context"
	"errors"
	"strings"

	"github.com/redis/go-redis/v9"
)

// Library is a generated board's Lua code: one Redis Functions library (Redis 7.0 or later,
// Valkey) whose functions are the board's scripted operations. Its name, and the prefix of
// every function in it, carry a hash of its text, so that two versions of a schema (during a
// migration, a rolling deploy) live side by side on one server, and loading the same text
// twice is harmless.
type Library struct {
	Name   string // the library's name: <stem>_<hash>
	Source string // its text, starting "#!lua name=<Name>"
}

// Function is one function of a Library, called by name with FCALL or FCALL_RO.
type Function struct {
	Lib  *Library
	Name string
}

// NewLibrary returns the library whose text is source, named as its first line names it
// ("#!lua name=<Name>"; left empty when it does not, and then FUNCTION LOAD refuses it).
func NewLibrary(source string) *Library {
	first, _, _ := strings.Cut(source, "\n")
	name, _ := strings.CutPrefix(first, "#!lua name=")
	return &Library{Name: name, Source: source}
}

// Function returns the library's function for operation op: <Name>_<op>.
func (l *Library) Function(op string) *Function {
	return &Function{Lib: l, Name: l.Name + "_" + op}
}

// Load loads the library on the server — on every master of a Cluster, on every shard of a
// Ring — so that its functions can be called inside pipelines and transactions, where a call
// that finds the library missing cannot load it and try again. A library already there (the
// same text: its name carries its hash) counts as loaded. Generated packages call it from
// Board.Load.
func (l *Library) Load(ctx context.Context, c redis.UniversalClient) error {
	switch c := c.(type) {
	case *redis.ClusterClient:
		return c.ForEachMaster(ctx, func(ctx context.Context, m *redis.Client) error { return l.loadOn(ctx, m) })
	case *redis.Ring:
		return c.ForEachShard(ctx, func(ctx context.Context, s *redis.Client) error { return l.loadOn(ctx, s) })
	}
	return l.loadOn(ctx, c)
}

// loadOn loads the library on one server (or, for any other client, wherever it sends
// FUNCTION LOAD).
func (l *Library) loadOn(ctx context.Context, c redis.Cmdable) error {
	err := c.FunctionLoad(ctx, l.Source).Err()
	if err != nil && strings.Contains(err.Error(), "already exists") {
		return nil // loaded before, by us or by another client: the name is the text's hash
	}
	return err
}

// loadFor loads the library where a call with keys went and found it missing: on a Cluster,
// the master of keys[0]'s slot (a replica receives it from there); elsewhere as Load does.
func (l *Library) loadFor(ctx context.Context, c redis.Cmdable, keys []string) error {
	switch c := c.(type) {
	case *redis.ClusterClient:
		if len(keys) > 0 {
			m, err := c.MasterForKey(ctx, keys[0])
			if err != nil {
				return err
			}
			return l.loadOn(ctx, m)
		}
		return l.Load(ctx, c)
	case *redis.Ring:
		return l.Load(ctx, c)
	}
	return l.loadOn(ctx, c)
}

// missing reports whether err is the server's answer to a call of a function it does not have
// (a new server, a restart without persistence, FUNCTION FLUSH, a replica promoted before the
// library reached it): the function did not run.
func missing(err error) bool {
	var re redis.Error
	return errors.As(err, &re) && strings.Contains(re.Error(), "Function not found")
}

// queue sends (or, on a pipeline, queues) the call: FCALL_RO when ro, else FCALL.
func (f *Function) queue(ctx context.Context, c redis.Cmdable, ro bool, keys []string, args []any) *redis.Cmd {
	if ro {
		return c.FCallRo(ctx, f.Name, keys, args...)
	}
	return c.FCall(ctx, f.Name, keys, args...)
}

// call calls the function, and when the server lacks it, loads the library there and calls
// it once more.
func (f *Function) call(ctx context.Context, c redis.Cmdable, ro bool, keys []string, args []any) (any, error) {
	v, err := f.queue(ctx, c, ro, keys, args).Result()
	if missing(err) {
		if err := f.Lib.loadFor(ctx, c, keys); err != nil {
			return nil, err
		}
		v, err = f.queue(ctx, c, ro, keys, args).Result()
	}
	if err != nil {
		return nil, ReplyError(err)
	}
	return v, nil
}

// Call calls a generated write function with FCALL, loading its library first where the
// server lacks it. Error replies of rankgen's functions become typed errors (see ReplyError);
// any other error is returned as it is.
func Call(ctx context.Context, c redis.Cmdable, f *Function, keys []string, args ...any) (any, error) {
	return f.call(ctx, c, false, keys, args)
}

// RunRO calls a read-only generated function (flags no-writes) with FCALL_RO, which may run on
// a replica, loading its library first where the server lacks it.
func RunRO(ctx context.Context, c redis.Cmdable, f *Function, keys []string, args ...any) (any, error) {
	return f.call(ctx, c, true, keys, args)
}
