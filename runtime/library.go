package runtime

import (
	"context"
	"errors"
	"strings"
	"sync"

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

	// board: a view of one board's functions in a package's library (Board), whose names
	// carry the board's name after the library's.
	board     string
	functions sync.Map // op → *Function: the functions made by Function, for batchForm
}

// Function is one function of a Library, called by name with FCALL or FCALL_RO.
type Function struct {
	Lib  *Library
	Name string
	op   string // the operation, as given to Library.Function
}

// NewLibrary returns the library whose text is source, named as its first line names it
// ("#!lua name=<Name>"; left empty when it does not, and then FUNCTION LOAD refuses it).
func NewLibrary(source string) *Library {
	first, _, _ := strings.Cut(source, "\n")
	name, _ := strings.CutPrefix(first, "#!lua name=")
	return &Library{Name: name, Source: source}
}

// Function returns the library's function for operation op: <Name>_<op>, or on a board's view
// (Board) <Name>_<board>_<op>.
func (l *Library) Function(op string) *Function {
	if f, ok := l.functions.Load(op); ok {
		return f.(*Function)
	}
	name := l.Name + "_" + op
	if l.board != "" {
		name = l.Name + "_" + l.board + "_" + op
	}
	f, _ := l.functions.LoadOrStore(op, &Function{Lib: l, Name: name, op: op})
	return f.(*Function)
}

// Board returns the view of one board's functions in a package's library, whose part for that
// board declared it (use_layout{board = name}): the same library, loaded and named as l, whose
// Function names the board's functions. A generated package of boards gives each board's code
// its view.
func (l *Library) Board(name string) *Library {
	return &Library{Name: l.Name, Source: l.Source, board: name}
}

// BatchSuffix ends the operation of a field update's batch form ("add_points_many"). The
// generated libraries keep this contract: the batch form takes the single form's arguments
// with its last two (the id, the value) repeated, once per update, and replies the single
// form's reply values once per update, in order.
const BatchSuffix = "_many"

// batchForm is the batch form of f (see BatchSuffix), when f is a field update's single form
// and its library has one; else nil.
func (f *Function) batchForm() *Function {
	if f.Lib == nil || f.op == "" || strings.HasSuffix(f.op, BatchSuffix) {
		return nil
	}
	many, _ := f.Lib.functions.Load(f.op + BatchSuffix)
	batch, _ := many.(*Function)
	return batch
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
// FUNCTION LOAD). REPLACE makes loading it again harmless without reading the server's words:
// its name is its text's hash, so whatever holds that name is this text.
func (l *Library) loadOn(ctx context.Context, c redis.Cmdable) error {
	return c.FunctionLoadReplace(ctx, l.Source).Err()
}

// loadFor loads the library where a call with keys went and found it missing: on a Cluster,
// the master of keys[0]'s slot (a replica receives it from there); elsewhere as Load does.
func (l *Library) loadFor(ctx context.Context, c redis.Cmdable, keys []string) error {
	if cc, ok := c.(*redis.ClusterClient); ok && len(keys) > 0 {
		m, err := cc.MasterForKey(ctx, keys[0])
		if err != nil {
			return err
		}
		return l.loadOn(ctx, m)
	}
	if u, ok := c.(redis.UniversalClient); ok {
		return l.Load(ctx, u)
	}
	return l.loadOn(ctx, c)
}

// missing reports whether a call that failed with err found the library missing where it went
// (a new server, a restart without persistence, FUNCTION FLUSH, a replica promoted before the
// library reached it): then its function did not run. Redis and Valkey answer such a call
// "ERR Function not found", and that answer is taken at its word: a library's functions reply
// only their own RANKGEN_ errors, and another client may load the library between the call and
// any later question. Words are not protocol, though, so any other error reply that is neither
// the library's own nor a server code rankgen types is followed by asking the server (FUNCTION
// LIST) whether it holds the library, a round trip only on that error path.
func (l *Library) missing(ctx context.Context, c redis.Cmdable, keys []string, err error) bool {
	var re redis.Error
	if !errors.As(err, &re) || errors.Is(err, redis.Nil) { // go-redis gives a nil reply as an error too
		return false
	}
	msg := re.Error()
	if strings.HasPrefix(msg, "ERR Function not found") {
		return true
	}
	if _, ours := ParseReply(msg); ours {
		return false
	}
	if _, typed := serverCodes[replyCode(msg)]; typed {
		return false
	}
	held, perr := l.heldFor(ctx, c, keys)
	return perr == nil && !held
}

// heldFor reports whether the library is on the server a call with keys goes to: on a Cluster
// the master of keys[0]'s slot; on a Ring (or a Cluster call without keys) every shard.
func (l *Library) heldFor(ctx context.Context, c redis.Cmdable, keys []string) (bool, error) {
	switch c := c.(type) {
	case *redis.ClusterClient:
		if len(keys) > 0 {
			m, err := c.MasterForKey(ctx, keys[0])
			if err != nil {
				return false, err
			}
			return l.heldOn(ctx, m)
		}
		return l.heldOnEach(ctx, c.ForEachMaster)
	case *redis.Ring:
		return l.heldOnEach(ctx, c.ForEachShard)
	}
	return l.heldOn(ctx, c)
}

// heldOnEach reports whether every server forEach visits holds the library.
func (l *Library) heldOnEach(ctx context.Context, forEach func(context.Context, func(context.Context, *redis.Client) error) error) (bool, error) {
	var mu sync.Mutex
	all := true
	err := forEach(ctx, func(ctx context.Context, c *redis.Client) error {
		held, err := l.heldOn(ctx, c)
		mu.Lock()
		all = all && held
		mu.Unlock()
		return err
	})
	return all, err
}

// heldOn reports whether one server holds the library, comparing names exactly.
func (l *Library) heldOn(ctx context.Context, c redis.Cmdable) (bool, error) {
	libs, err := c.FunctionList(ctx, redis.FunctionListQuery{LibraryNamePattern: l.Name}).Result()
	if err != nil {
		return false, err
	}
	for _, lib := range libs {
		if lib.Name == l.Name {
			return true, nil
		}
	}
	return false, nil
}

// queue sends (or, on a pipeline, queues) the call: FCALL_RO when ro, else FCALL.
func (f *Function) queue(ctx context.Context, c redis.Cmdable, ro bool, keys []string, args []any) *redis.Cmd {
	if ro {
		return c.FCallRo(ctx, f.Name, keys, args...)
	}
	return c.FCall(ctx, f.Name, keys, args...)
}

// call calls the function, and when the server lacks it, loads the library there and calls
// it once more (sendLoaded); its error is typed (ReplyError).
func (f *Function) call(ctx context.Context, c redis.Cmdable, ro bool, keys []string, args []any) (any, error) {
	v, err := f.send(ctx, c, ro, keys, args)
	return v, ReplyError(err)
}

// send is call with the error as go-redis returned it, so that a write can tell the server's
// answer from a failure to get one (writeError) before the answer is typed.
func (f *Function) send(ctx context.Context, c redis.Cmdable, ro bool, keys []string, args []any) (v any, err error) {
	if lerr := f.sendLoaded(ctx, c, keys, func() error {
		v, err = f.queue(ctx, c, ro, keys, args).Result()
		return err
	}); lerr != nil {
		return nil, lerr
	}
	if err != nil {
		return nil, err
	}
	return v, nil
}

// sendLoaded runs send, a call of f (alone or in a pipeline) whose error it returns, and when
// that error says the server the call went to lacks the library (missing: the function did
// not run), loads the library there and runs send once more. It returns loading's error; the
// call's own stays with send.
func (f *Function) sendLoaded(ctx context.Context, c redis.Cmdable, keys []string, send func() error) error {
	if err := send(); f.Lib.missing(ctx, c, keys, err) {
		if err := f.Lib.loadFor(ctx, c, keys); err != nil {
			return err
		}
		_ = send()
	}
	return nil
}

// Call calls a generated write function with FCALL, loading its library first where the
// server lacks it. Error replies of rankgen's functions become typed errors (see ReplyError);
// any other error is returned as it is.
func Call(ctx context.Context, c redis.Cmdable, f *Function, keys []string, args ...any) (any, error) {
	return f.call(ctx, c, false, keys, args)
}

// CallRO calls a read-only generated function (flags no-writes) with FCALL_RO, which may run on
// a replica, loading its library first where the server lacks it.
func CallRO(ctx context.Context, c redis.Cmdable, f *Function, keys []string, args ...any) (any, error) {
	return f.call(ctx, c, true, keys, args)
}
