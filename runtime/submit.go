package runtime

import (
	"context"
	"errors"
	"fmt"
	"strconv"
	"strings"

	"github.com/rankgen/rankgen/text/quote"
	"github.com/redis/go-redis/v9"
)

// A submission is one call of a package of boards' library that writes several of its boards,
// each with one of the board's own single writes (Set, Best, Insert or Update), exactly once
// under one token and all or nothing: every board is checked, by its own guards, before any is
// written (the library's submission function, in head.lua). The generated code of a
// submission gives Submit one Step per board; Submit runs each step's write twice through the
// board's own method: first to capture the function, keys and arguments it would send (Write
// sends nothing then), then, once the submission's reply is in, to read its part of the reply
// as the method reads a reply of its own (Write returns that part).

// Step is one board's write in a submission.
type Step struct {
	Name  string // the step's name in the submission (its field in the generated types)
	Board string // the board's name in its package
	Op    string // the operation its write calls: the library function Write must be handed
	// Write calls the board's method (b.Best(ctx, e), b.Update(ctx, id, changes...)) with ctx,
	// keeping what it returns.
	Write func(ctx context.Context) error
}

// SubmissionError is a submission (or a removal's call) refused by one of its steps: that call
// wrote nothing. (A removal over several hash slots is a call per slot: the calls before the
// refused one stand, as its counts say.) It matches, with errors.Is, what the step's write
// alone would have been refused with (ErrOverflow, ErrLayoutMismatch, ErrMigrating,
// ErrSeasonExpired, ErrWrongType, …) and ErrSubmission.
type SubmissionError struct {
	Step  string // the step that refused
	Board string // its board
	Err   error
}

// ErrSubmission matches every SubmissionError.
var ErrSubmission = errors.New("rankgen: a submission's step refused it")

func (e *SubmissionError) Error() string {
	return fmt.Sprintf("rankgen: refused by step %s (board %s), the call wrote nothing: %v", e.Step, e.Board, e.Err)
}

func (e *SubmissionError) Unwrap() []error { return []error{e.Err, ErrSubmission} }

// ErrStepsCrossSlot: a submission's boards lie in different hash slots, which one script
// cannot reach on Redis Cluster.
var ErrStepsCrossSlot = errors.New("rankgen: a submission's boards lie in different hash slots; give their keys one hash tag")

// stepCall is what a step's write meets in Core.Write: capture, or the reply to read.
type stepCall struct {
	capture bool
	// views are the calls captured: one, or, on a board whose layout replaces another, one
	// per view of the board its write tried, in the order it tried them; chosen is the one sent.
	views  []captured
	chosen int
	tried  int    // how many of views were sent
	name   string // the step's name
	// refused is why the view the board tried first refused the step before sending (a value
	// the layout it replaces cannot hold): the step's error if its other view's call is refused
	// as another layout's.
	refused error
	reply   any
}

// captured is one call a step's write would send.
type captured struct {
	core *Core
	f    *Function
	args []any
}

type stepKey struct{}

// errCaptured ends a step's write once its call is captured.
var errCaptured = errors.New("rankgen: a submission's step was captured, not sent")

// errOtherView ends the first call captured of a step's write, so that a board whose layout
// replaces another tries its other view too (it matches ErrLayoutMismatch, which routes); and,
// reading the reply, answers the view whose call was not sent.
var errOtherView = fmt.Errorf("rankgen: a submission's step in the other view: %w", ErrLayoutMismatch)

// stepOf is the step call ctx carries, if any.
func stepOf(ctx context.Context) *stepCall {
	s, _ := ctx.Value(stepKey{}).(*stepCall)
	return s
}

// write is Core.Write within a step: the call captured (nothing sent), or the submission's
// reply for it.
func (s *stepCall) write(c *Core, f *Function, args []any) (any, error) {
	if !s.capture {
		if s.views[s.chosen].core != c {
			return nil, errOtherView
		}
		return s.reply, nil
	}
	if len(s.views) > 0 && (len(s.views) == 2 || s.views[0].core.keys[0] != c.keys[0] || s.views[0].core.spec == c.spec) {
		return nil, errors.New("rankgen: a submission's step wrote twice; a step is one single write")
	}
	s.views = append(s.views, captured{c, f, args})
	if len(s.views) == 1 {
		return nil, errOtherView
	}
	return nil, errCaptured
}

// sent is the call of the view sent.
func (s *stepCall) sent() captured { return s.views[s.chosen] }

// Submit runs the submission f (the library's submit_<name> function) of steps: it captures
// each step's call, checks that they reach distinct boards in one hash slot, sends them as one
// call under one token (the first step's board's: its dedup window and replicas apply, and its
// idempotency key, WithIdempotencyKey, names the submission), and hands each step its part of
// the reply. A step's own refusal before anything is sent (an entry out of range) and a
// step's refusal by the script are a *SubmissionError naming the step; a lost reply is an
// *UncertainError whose token resends the whole submission exactly once.
func Submit(ctx context.Context, f *Function, steps []Step) error {
	if len(steps) == 0 {
		return errors.New("rankgen: a submission without steps")
	}
	calls, err := capture(ctx, steps, false)
	if err != nil {
		return err
	}
	return sendViews(ctx, f, steps, calls)
}

// sendViews sends the calls of steps (send), each step in the view of its board tried first. A
// step refused because its board holds the other layout (the call wrote nothing) is sent again
// in its other view; a call whose token another call recorded, in other views (a resend across
// a migration's switch), again in the others, where the first call's reply answers it.
func sendViews(ctx context.Context, f *Function, steps []Step, calls []*stepCall) error {
	for {
		err := send(ctx, f, steps, calls)
		var se *SubmissionError
		var te *TokenReusedError
		switch {
		case errors.As(err, &se) && errors.Is(se.Err, ErrLayoutMismatch):
			call := refusedStep(calls, se.Step)
			if call != nil && call.tried < len(call.views) {
				call.chosen = 1 - call.chosen
				continue
			}
			if call != nil && call.refused != nil {
				return &SubmissionError{Step: se.Step, Board: se.Board, Err: call.refused}
			}
		case errors.As(err, &te) && (te.Why == ReusedByLayout || te.Why == ReusedWithArguments):
			if answered, err2 := resendInOtherViews(ctx, f, steps, calls); answered {
				return err2
			}
		}
		return err
	}
}

// maxViewsSearched bounds the steps of two views a resend tries every choice of views for.
const maxViewsSearched = 6

// resendInOtherViews sends calls again with every other choice of views of the steps that have
// two, until one is not refused for its token: the choice the first call made, answered with
// its reply. Each refused try writes nothing (the token is checked first). False: none was.
func resendInOtherViews(ctx context.Context, f *Function, steps []Step, calls []*stepCall) (bool, error) {
	var two []*stepCall
	for _, call := range calls {
		if call != nil && len(call.views) == 2 {
			two = append(two, call)
		}
	}
	if len(two) == 0 || len(two) > maxViewsSearched {
		return false, nil
	}
	first := make([]int, len(two))
	for i, call := range two {
		first[i] = call.chosen
	}
	for choice := 1; choice < 1<<len(two); choice++ {
		for i, call := range two {
			call.chosen = first[i] ^ (choice >> i & 1)
		}
		err := send(ctx, f, steps, calls)
		var te *TokenReusedError
		if !errors.As(err, &te) {
			return true, err
		}
	}
	return false, nil
}

// refusedStep is the call of the step the script names (a submission's step by its name, a
// removal's "<board>#<k>" by its place among the calls sent), or nil.
func refusedStep(calls []*stepCall, step string) *stepCall {
	_, k, removal := strings.Cut(step, "#")
	n := 0
	for _, call := range calls {
		if call == nil {
			continue
		}
		n++
		if removal && strconv.Itoa(n) == k || !removal && call.name == step {
			return call
		}
	}
	return nil
}

// capture runs each step's write to capture its call. skipIdle (a removal): a step that sends
// nothing (nothing to do) or writes a board an earlier step writes is left out (its call nil)
// rather than refused, and steps may lie in several hash slots.
func capture(ctx context.Context, steps []Step, skipIdle bool) ([]*stepCall, error) {
	calls := make([]*stepCall, len(steps))
	written := map[string]string{} // board key → the step that writes it
	var first string
	for i, st := range steps {
		call := &stepCall{capture: true, name: st.Name}
		err := st.Write(context.WithValue(ctx, stepKey{}, call))
		if len(call.views) == 0 {
			if err == nil && skipIdle {
				continue
			}
			if err == nil {
				err = errors.New("rankgen: the step's write sent nothing")
			}
			return nil, &SubmissionError{Step: st.Name, Board: st.Board, Err: err}
		}
		if len(call.views) == 1 && err != nil && !errors.Is(err, errOtherView) {
			call.refused = err
		}
		for _, v := range call.views {
			if v.f.op != st.Op {
				return nil, fmt.Errorf("rankgen: submission step %s calls %s, not %s (regenerate the package)", st.Name, v.f.op, st.Op)
			}
		}
		key := call.sent().core.keys[0]
		if _, dup := written[key]; dup && skipIdle {
			continue // a removal names a board twice: once is enough
		}
		if other, dup := written[key]; dup {
			return nil, &SubmissionError{Step: st.Name, Board: st.Board, Err: fmt.Errorf("writes the board %s, as step %s does: a submission writes each board once", quote.Short(key), other)}
		}
		written[key] = st.Name
		if first == "" {
			first = key
		} else if !skipIdle && Slot(key) != Slot(first) {
			return nil, &SubmissionError{Step: st.Name, Board: st.Board, Err: fmt.Errorf("%w: %s lies in hash slot %d, the first board %s in %d",
				ErrStepsCrossSlot, quote.Short(key), Slot(key), quote.Short(first), Slot(first))}
		}
		calls[i] = call
	}
	return calls, nil
}

// send sends the captured calls of steps (nil: left out), each its chosen view's, as one call
// of f under one token, with the part of the library each step's call is in after the number of
// steps (its board's, or the part of the layout its layout replaces), and hands each step its
// reply.
func send(ctx context.Context, f *Function, steps []Step, calls []*stepCall) error {
	var keys []string
	var parts, counts, own []any
	var firstCore *Core
	n := 0
	for _, call := range calls {
		if call == nil {
			continue
		}
		call.tried++
		sent := call.sent()
		if firstCore == nil {
			firstCore = sent.core
		}
		stepArgs := append([]any(nil), sent.args...)
		stepArgs[argToken], stepArgs[argWindow] = "", "0" // the call's token stands for every step
		keys = append(keys, sent.core.keys...)
		parts = append(parts, sent.core.spec.Library.board)
		counts = append(counts, len(sent.core.keys), len(stepArgs))
		own = append(own, stepArgs...)
		n++
	}
	if err := firstCore.dedup.Err(); err != nil {
		return err
	}
	token, err := firstCore.tokens.Next(ctx)
	if err != nil {
		return err
	}
	args := append([]any{"", "", token, firstCore.dedup.Arg(), n}, parts...)
	args = append(append(args, counts...), own...)
	v, err := RunWriteWait(ctx, firstCore.client, f, keys, token, firstCore.replicas, args...)
	if err != nil {
		return submissionError(err)
	}
	replies, ok := v.([]any)
	if !ok || len(replies) != n {
		return fmt.Errorf("rankgen: %s replied %T of %d parts for %d steps", f.Name, v, len(replies), n)
	}
	k := 0
	for i, st := range steps {
		if calls[i] == nil {
			continue
		}
		calls[i].capture, calls[i].reply = false, replies[k]
		k++
		if err := st.Write(context.WithValue(ctx, stepKey{}, calls[i])); err != nil {
			return fmt.Errorf("rankgen: reading step %s of the call's reply: %w", st.Name, err)
		}
	}
	return nil
}

// RemovalBoard is one board of a package-wide removal (a generated Removal): its name in its
// package and its Remove over ids (the board's own, the ids in its id type: an id it cannot
// hold is left out).
type RemovalBoard struct {
	Board  string
	Remove func(ctx context.Context, ids []string) (int64, error)
}

// Removed is how many of the ids one board of a removal held.
type Removed struct {
	Board string // its name in the package
	Key   string // its key
	Count int64
}

// RemoveFrom removes ids from boards of a package (f: its library's remove_from function),
// whatever their layouts, and returns each board's count, in order. When one script reaches
// every board's keys (one server; on a Cluster, one hash slot) it is one call, atomic: a board
// that refuses (another layout's, a migration's fence) refuses it, as a *SubmissionError naming
// the board, and nothing is removed; a season's board that has expired counts 0. Otherwise the
// boards of each hash slot are one call each, atomic within the slot, in turn: on an error
// the counts say what was removed before it. Under an idempotency key a resend removes nothing
// twice and answers the first call's counts.
func RemoveFrom(ctx context.Context, f *Function, boards []RemovalBoard, ids []string) ([]Removed, error) {
	out := make([]Removed, len(boards))
	steps := make([]Step, len(boards))
	for i, b := range boards {
		out[i].Board = b.Board
		steps[i] = Step{Name: b.Board, Board: b.Board, Op: OpRemove, Write: func(ctx context.Context) (err error) {
			out[i].Count, err = b.Remove(ctx, ids)
			return err
		}}
	}
	if len(boards) == 0 || len(ids) == 0 {
		return out, nil
	}
	calls, err := capture(ctx, steps, true)
	if err != nil {
		return nil, err
	}
	var keys []string
	var client redis.UniversalClient
	for i, call := range calls {
		if call != nil {
			out[i].Key = call.sent().core.keys[0]
			keys = append(keys, call.sent().core.ScriptKeys()...)
			client = call.sent().core.client
		}
	}
	if client == nil {
		return out, nil // no board can hold any of the ids
	}
	// One call per hash slot (one in all where one script reaches every key).
	var groups [][]int
	if OneScript(client, keys) {
		groups = [][]int{nil}
		for i, call := range calls {
			if call != nil {
				groups[0] = append(groups[0], i)
			}
		}
	} else {
		bySlot := map[int]int{}
		for i, call := range calls {
			if call == nil {
				continue
			}
			slot := Slot(call.sent().core.keys[0])
			g, ok := bySlot[slot]
			if !ok {
				g = len(groups)
				bySlot[slot] = g
				groups = append(groups, nil)
			}
			groups[g] = append(groups[g], i)
		}
	}
	for _, g := range groups {
		part := make([]*stepCall, len(calls))
		for _, i := range g {
			part[i] = calls[i]
		}
		if err := sendViews(ctx, f, steps, part); err != nil {
			return out, err
		}
	}
	return out, nil
}

// submissionError types the refusal the script names a step of:
// RANKGEN_SUBMISSION step=<name> board=<board> <the step's own refusal>.
func submissionError(err error) error {
	var se *ScriptError
	if !errors.As(err, &se) || se.Code != "SUBMISSION" {
		return err
	}
	out := &SubmissionError{}
	rest := se.Detail
	for _, field := range []*string{&out.Step, &out.Board} {
		part, tail, _ := strings.Cut(rest, " ")
		_, *field, _ = strings.Cut(part, "=")
		rest = tail
	}
	out.Err = ReplyError(stepReply(rest)) // typed as the step's own reply would be
	return out
}

// stepReply is a step's own error reply within a submission's: RANKGEN_<CODE> …, or a server's
// (WRONGTYPE, OOM) met by the step's commands.
type stepReply string

func (r stepReply) Error() string { return string(r) }

// RedisError marks it as a reply of the server, which ReplyError types.
func (stepReply) RedisError() {}

// Removal is a package-wide removal being put together: the boards to remove ids from, in
// order, each part given as boards or, for a season family, found when it runs (a generated
// package's Removal holds one).
type Removal struct {
	parts []func(context.Context) ([]RemovalBoard, error)
}

// Add adds boards, found when the removal runs.
func (r *Removal) Add(part func(context.Context) ([]RemovalBoard, error)) {
	r.parts = append(r.parts, part)
}

// Run removes ids from every board added, with f, the package library's remove_from function
// (RemoveFrom).
func (r *Removal) Run(ctx context.Context, f *Function, ids []string) ([]Removed, error) {
	var boards []RemovalBoard
	for _, part := range r.parts {
		bs, err := part(ctx)
		if err != nil {
			return nil, err
		}
		boards = append(boards, bs...)
	}
	return RemoveFrom(ctx, f, boards, ids)
}

// RemoveByText is the RemovalBoard of board b, named board in its package, whose ids are text.
func RemoveByText[B interface {
	Remove(ctx context.Context, ids ...string) (int64, error)
}](board string, b B) RemovalBoard {
	return RemovalBoard{Board: board, Remove: func(ctx context.Context, ids []string) (int64, error) { return b.Remove(ctx, ids...) }}
}

// RemoveByNumber is the RemovalBoard of board b, named board in its package, whose ids are
// uint64: an id that is not one's decimal text is not on it.
func RemoveByNumber[B interface {
	Remove(ctx context.Context, ids ...uint64) (int64, error)
}](board string, b B) RemovalBoard {
	return RemovalBoard{Board: board, Remove: func(ctx context.Context, ids []string) (int64, error) {
		var nums []uint64
		for _, id := range ids {
			if n, err := strconv.ParseUint(id, 10, 64); err == nil && strconv.FormatUint(n, 10) == id {
				nums = append(nums, n)
			}
		}
		return b.Remove(ctx, nums...)
	}}
}
