package exampleboards

import (
	"github.com/rankgen/rankgen/examples/generated/arena"
	"github.com/rankgen/rankgen/examples/generated/duel"
	"github.com/rankgen/rankgen/examples/generated/duelint"
	"github.com/rankgen/rankgen/examples/generated/game"
	"github.com/rankgen/rankgen/examples/generated/ladders"
	"github.com/rankgen/rankgen/examples/generated/laps"
	"github.com/rankgen/rankgen/examples/generated/pits"
	"github.com/rankgen/rankgen/examples/generated/quiz"
	"github.com/rankgen/rankgen/examples/generated/racing"
	"github.com/rankgen/rankgen/examples/generated/season"
	"github.com/rankgen/rankgen/examples/generated/seed000member"
	"github.com/rankgen/rankgen/examples/generated/seed001zranking"
	"github.com/rankgen/rankgen/examples/generated/seed002binary"
	"github.com/rankgen/rankgen/examples/generated/seed002decimal"
	"github.com/rankgen/rankgen/examples/generated/seed002keysort"
	"github.com/rankgen/rankgen/examples/generated/seed003scaling"
	"github.com/rankgen/rankgen/examples/generated/seed004shift"
	"github.com/rankgen/rankgen/examples/generated/tournament"
	"github.com/rankgen/rankgen/examples/generated/weekly"
)

// changeFuncs are the change constructors of each example (the package functions of
// Board.Update, which reflection cannot find by name), in catalogue order
// (catalog.FieldUpdates), then SetData on a layout with data fields;
// boardmodel.Board.UseChanges checks them against the layout.
var changeFuncs = map[string][]any{
	"arena":           {arena.AddPoints, arena.MaxPoints, arena.SetPoints, arena.SetPaid},
	"duel":            {duel.AddPoints, duel.MaxPoints, duel.SetPoints, duel.AddWins, duel.MinWins, duel.SetTier, duel.MaxTier},
	"duelint":         {duelint.AddPoints, duelint.MaxPoints, duelint.SetPoints, duelint.AddWins, duelint.MinWins, duelint.SetTier, duelint.MaxTier},
	"ladders":         {ladders.AddScore, ladders.SetData},
	"laps":            {laps.MinBestLap, laps.SetBestLap, laps.AddLaps, laps.SetData},
	"pits":            {pits.MinStopMs, pits.SetStopMs, pits.SetData},
	"quiz":            {quiz.AddCorrect, quiz.SetCorrect, quiz.MinMillis, quiz.SetMillis},
	"racing":          {racing.AddLaps, racing.SetLaps, racing.AddRaceTime, racing.MinRaceTime, racing.SetRaceTime},
	"season":          {season.AddPoints, season.MaxTier, season.SetTier, season.AddWins, season.SetWins},
	"seed000member":   {seed000member.AddPrimary, seed000member.SetPrimary, seed000member.SetReachedAt},
	"seed001zranking": {seed001zranking.AddValue, seed001zranking.SetValue, seed001zranking.SetUpdatedAt},
	"seed002binary":   {seed002binary.AddPoints, seed002binary.SetPoints, seed002binary.SetPaid, seed002binary.SetReachedAt},
	"seed002decimal":  {seed002decimal.AddPoints, seed002decimal.SetPoints, seed002decimal.SetPaid, seed002decimal.SetReachedAt},
	"seed002keysort":  {seed002keysort.AddPoints, seed002keysort.SetPoints, seed002keysort.SetPaid, seed002keysort.SetReachedAt},
	"seed003scaling":  {seed003scaling.AddRaw, seed003scaling.SetRaw, seed003scaling.SetAt},
	"seed004shift":    {seed004shift.AddPoints, seed004shift.SetPoints, seed004shift.SetAt},
	"tournament":      {tournament.MinBestLap, tournament.SetBestLap},
	"weekly":          {weekly.AddPoints, weekly.MaxPoints, weekly.SetPoints, weekly.SetPaid},
	"game_track":      {game.TrackMinBestLap, game.TrackSetBestLap, game.TrackSetData},
	"game_alltime":    {game.AlltimeAddLaps, game.AlltimeAddMeters},
	"game_weekly":     {game.WeeklyMinBestLap, game.WeeklySetBestLap},
	"game_daily":      {game.DailyAddLaps},
}

// Changes returns the example's change constructors (AddPoints, …) in catalogue order, for
// boardmodel.Board.UseChanges; none for an example whose fields declare no update.
func (ex Example) Changes() []any { return changeFuncs[ex.Name] }
