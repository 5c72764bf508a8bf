// Package examples holds rankgen's example schemas (schemas/*.yaml) and, committed, the
// packages generated from them (generated/<package>/). Regenerate them all with
//
//	go generate ./examples/...
//
// One directive per schema, writing into generated/<its package>; add a line when you add a
// schema (TestDirectives fails until you do). CI runs "rankgen check" on the same lines, so a
// schema edited without regenerating fails the build. "-py clients/py" also writes the schema's
// Python client there (docs/python.md).
//
// This file holds only the package clause and the directives, as a gen.go should: code that
// uses the boards lives in other files (here, other packages), so the directives are easy to
// find and this file changes only when a schema is added.
package examples

//go:generate go run github.com/rankgen/rankgen/cmd/rankgen generate -o generated/arena schemas/arena.yaml
//go:generate go run github.com/rankgen/rankgen/cmd/rankgen generate -o generated/duel -ts clients/ts schemas/duel.yaml
//go:generate go run github.com/rankgen/rankgen/cmd/rankgen generate -o generated/duelint schemas/duel_integer.yaml
//go:generate go run github.com/rankgen/rankgen/cmd/rankgen generate -o generated/game schemas/game/game.yaml
//go:generate go run github.com/rankgen/rankgen/cmd/rankgen generate -o generated/laps -py clients/py -ts clients/ts schemas/laps.yaml
//go:generate go run github.com/rankgen/rankgen/cmd/rankgen generate -o generated/ladders schemas/ladders.yaml
//go:generate go run github.com/rankgen/rankgen/cmd/rankgen generate -o generated/pits -ts clients/ts schemas/pits.yaml
//go:generate go run github.com/rankgen/rankgen/cmd/rankgen generate -o generated/racing -py clients/py -ts clients/ts schemas/racing.yaml
//go:generate go run github.com/rankgen/rankgen/cmd/rankgen generate -o generated/quiz schemas/quiz.yaml
//go:generate go run github.com/rankgen/rankgen/cmd/rankgen generate -o generated/season -py clients/py schemas/season.yaml
//go:generate go run github.com/rankgen/rankgen/cmd/rankgen generate -o generated/seed000member schemas/seed000_member.yaml
//go:generate go run github.com/rankgen/rankgen/cmd/rankgen generate -o generated/seed001zranking schemas/seed001_zranking.yaml
//go:generate go run github.com/rankgen/rankgen/cmd/rankgen generate -o generated/seed002binary schemas/seed002_binary.yaml
//go:generate go run github.com/rankgen/rankgen/cmd/rankgen generate -o generated/seed002decimal schemas/seed002_decimal.yaml
//go:generate go run github.com/rankgen/rankgen/cmd/rankgen generate -o generated/seed002keysort schemas/seed002_keysort.yaml
//go:generate go run github.com/rankgen/rankgen/cmd/rankgen generate -o generated/seed003scaling schemas/seed003_scaling.yaml
//go:generate go run github.com/rankgen/rankgen/cmd/rankgen generate -o generated/seed004shift schemas/seed004_shift.yaml
//go:generate go run github.com/rankgen/rankgen/cmd/rankgen generate -o generated/tournament schemas/tournament.yaml
//go:generate go run github.com/rankgen/rankgen/cmd/rankgen generate -o generated/weekly -py clients/py -ts clients/ts schemas/weekly.yaml
