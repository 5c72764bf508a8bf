package runtime

import (
	"strconv"

	"github.com/rankgen/rankgen/text/quote"
)

// FeedKeys returns the keys of a feed's call (generated <Name>Feed types): the keys of each of
// its boards in turn, keysOf(board) (the board, its index or meta key, its ack key base, its
// fence, its data hash). It refuses, with a *KeyError (ErrBadKey) and before anything is sent, two boards under
// one key (a feed writes each board once) and boards that lie in different hash slots (a
// Redis Cluster would refuse the call: every key of a feed starts with one hash tag, and an
// empty key part empties the tag).
func FeedKeys(boards []string, keysOf func(string) []string) ([]string, error) {
	var keys []string
	for i, b := range boards {
		for _, prev := range boards[:i] {
			if prev == b {
				return nil, &KeyError{Key: quote.Short(b), Reason: "names two boards of the feed; a feed writes each board once"}
			}
		}
		if Slot(b) != Slot(boards[0]) {
			return nil, &KeyError{Key: quote.Short(b), Reason: "lies in hash slot " + strconv.Itoa(Slot(b)) + ", the feed's first board " +
				quote.Short(boards[0]) + " in " + strconv.Itoa(Slot(boards[0])) + "; give every key part of the hash tag a value"}
		}
		keys = append(keys, keysOf(b)...)
	}
	return keys, nil
}

// FeedBoard is one board's part of a feed's reply.
type FeedBoard struct {
	Changed bool    // the call wrote the board's entry
	Found   bool    // the board has an entry for the id after the call
	Score   float64 // Found: the entry's score and member
	Member  string
	Rank    int64 // Found, when asked for: the entry's 1-based rank after the call; else 0
}

// FeedBoards reads a feed's reply for n boards: per board {written 0/1, score, member (both empty
// when it has no entry), 0-based rank or -1}.
func FeedBoards(v any, n int) ([]FeedBoard, error) {
	list, ok := v.([]any)
	if !ok || len(list) != n {
		return nil, badReply("feed", strconv.Itoa(n)+" boards", v)
	}
	out := make([]FeedBoard, n)
	for i, item := range list {
		b, ok := item.([]any)
		if !ok || len(b) != 4 {
			return nil, badReply("feed", "{written, score, member, rank}", item)
		}
		written, ok1 := b[0].(int64)
		rank, ok2 := b[3].(int64)
		member, ok3 := b[2].(string)
		if !ok1 || !ok2 || !ok3 || written != 0 && written != 1 {
			return nil, badReply("feed", "{written, score, member, rank}", item)
		}
		out[i] = FeedBoard{Changed: written == 1, Member: member, Rank: rank + 1}
		if member == "" {
			out[i].Rank = 0
			continue
		}
		score, _, err := scoreMember(b[1], member)
		if err != nil {
			return nil, err
		}
		out[i].Found, out[i].Score = true, score
	}
	return out, nil
}
