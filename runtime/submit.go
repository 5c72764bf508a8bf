package runtime

import (
	"context"
	"errors"
	"fmt"
	"strings"

	"github.com/rankgen/rankgen/text/quote"
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

// SubmissionError is a submission refused by one of its steps: nothing was written. It
// matches, with errors.Is, what the step's write alone would have been refused with
// (ErrOverflow, ErrLayoutMismatch, ErrMigrating, ErrSeasonExpired, …) and ErrSubmission.
type SubmissionError struct {
	Step  string // the step that refused
	Board string // its board
	Err   error
}

// ErrSubmission matches every SubmissionError.
var ErrSubmission = errors.New("rankgen: a submission's step refused it")

func (e *SubmissionError) Error() string {
	return fmt.Sprintf("rankgen: submission refused by its step %s (board %s), nothing written: %v", e.Step, e.Board, e.Err)
}

func (e *SubmissionError) Unwrap() []error { return []error{e.Err, ErrSubmission} }

// ErrStepsCrossSlot: a submission's boards lie in different hash slots, which one script
// cannot reach on Redis Cluster.
var ErrStepsCrossSlot = errors.New("rankgen: a submission's boards lie in different hash slots; give their keys one hash tag")

// stepCall is what a step's write meets in Core.Write: capture, or the reply to read.
type stepCall struct {
	capture bool
	core    *Core
	f       *Function
	args    []any
	reply   any
}

type stepKey struct{}

// errCaptured ends a step's write once its call is captured.
var errCaptured = errors.New("rankgen: a submission's step was captured, not sent")

// stepOf is the step call ctx carries, if any.
func stepOf(ctx context.Context) *stepCall {
	s, _ := ctx.Value(stepKey{}).(*stepCall)
	return s
}

// write is Core.Write within a step: the call captured (nothing sent), or the submission's
// reply for it.
func (s *stepCall) write(c *Core, f *Function, args []any) (any, error) {
	if !s.capture {
		return s.reply, nil
	}
	if s.core != nil {
		return nil, errors.New("rankgen: a submission's step wrote twice; a step is one single write")
	}
	s.core, s.f, s.args = c, f, args
	return nil, errCaptured
}

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
	calls := make([]*stepCall, len(steps))
	var keys []string
	written := map[string]string{} // board key → the step that writes it
	args := []any{"", "", "", "", len(steps)}
	var own []any
	for i, st := range steps {
		call := &stepCall{capture: true}
		err := st.Write(context.WithValue(ctx, stepKey{}, call))
		if call.core == nil {
			if err == nil {
				err = errors.New("rankgen: the step's write sent nothing")
			}
			return &SubmissionError{Step: st.Name, Board: st.Board, Err: err}
		}
		if call.f.op != st.Op {
			return fmt.Errorf("rankgen: submission step %s calls %s, not %s (regenerate the package)", st.Name, call.f.op, st.Op)
		}
		c := call.core
		if other, dup := written[c.keys[0]]; dup {
			return &SubmissionError{Step: st.Name, Board: st.Board, Err: fmt.Errorf("writes the board %s, as step %s does: a submission writes each board once", quote.Short(c.keys[0]), other)}
		}
		written[c.keys[0]] = st.Name
		if len(keys) > 0 && Slot(c.keys[0]) != Slot(keys[0]) {
			return &SubmissionError{Step: st.Name, Board: st.Board, Err: fmt.Errorf("%w: %s lies in hash slot %d, the first board %s in %d",
				ErrStepsCrossSlot, quote.Short(c.keys[0]), Slot(c.keys[0]), quote.Short(keys[0]), Slot(keys[0]))}
		}
		stepArgs := append([]any(nil), call.args...)
		stepArgs[argToken], stepArgs[argWindow] = "", "0" // the submission's token stands for every step
		keys = append(keys, c.keys...)
		args = append(args, len(c.keys), len(stepArgs))
		own = append(own, stepArgs...)
		calls[i] = call
	}
	first := calls[0].core
	if err := first.dedup.Err(); err != nil {
		return err
	}
	token, err := first.tokens.Next(ctx)
	if err != nil {
		return err
	}
	args[argToken], args[argWindow] = token, first.dedup.Arg()
	v, err := RunWriteWait(ctx, first.client, f, keys, token, first.replicas, append(args, own...)...)
	if err != nil {
		return submissionError(err)
	}
	replies, ok := v.([]any)
	if !ok || len(replies) != len(steps) {
		return fmt.Errorf("rankgen: submission %s replied %T of %d parts for %d steps", f.Name, v, len(replies), len(steps))
	}
	for i, st := range steps {
		calls[i].capture, calls[i].reply = false, replies[i]
		if err := st.Write(context.WithValue(ctx, stepKey{}, calls[i])); err != nil {
			return fmt.Errorf("rankgen: reading step %s of the submission's reply: %w", st.Name, err)
		}
	}
	return nil
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
	if inner, ok := ParseReply(rest); ok {
		out.Err = inner
	} else {
		out.Err = errors.New(rest)
	}
	return out
}
