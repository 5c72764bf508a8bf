package goemit

// The ShardedBoard of a layout with data fields. Its writes need nothing of their own: each
// shard is a whole Board, which keeps an entry's data in its own data hash, in the shard's
// slot. Its merged reads return every entry with its Data, as Board's do, in the same round
// trip: rankgenrt.ShardedBoard reads a shard's entries by position with the script Board's own
// read of them runs (page, bottom), whose reply carries the data, where a board without data
// reads them with ZREVRANGE; the reads that already run a script per shard (after, band,
// around_score) read its reply with the same reader. Get and GetMany are the shards' own. This
// file only adds to the ShardedBoard's docs.

// typeDocExtra is what ShardedBoard's doc adds on a layout with data fields or a periodic one.
func (s *sharded) typeDocExtra() string {
	var doc string
	if s.l.HasData() {
		doc += " Each entry's Data lives on its shard, in the shard's data hash, and every merged read returns it with the entry, in the same round trip, as Board's reads do."
	}
	if s.l.Season != nil {
		doc += " It holds one season, as a Board does (Seasons.Sharded): every shard is the season's Board, so each shard's writes set the season's expiry and refuse times outside it."
	}
	return doc
}

// reshardDocExtra is what Reshard's doc adds on a layout with data fields or a periodic one.
func (s *sharded) reshardDocExtra() string {
	var doc string
	if s.l.HasData() {
		doc += " Each entry is copied with its Data (the source's After reads it, dst's SetMany stores it on the entry's new shard)."
	}
	if s.l.Season != nil {
		doc += " dst must hold the same season: its SetMany refuses season-anchored values outside its own season."
	}
	return doc
}
