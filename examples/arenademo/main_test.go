package main

import (
	"bytes"
	"context"
	"testing"

	"github.com/rankgen/rankgen/internal/testkit/redistest"
)

func TestMain(m *testing.M) { redistest.Main(m) }

const want = `cy's 80 kept: false | cy stays at 90
dee: 120 points, reached after ana: true
overflow refused, dee unchanged
batch: cy → 95 | bo: true
eli: 90 points, paid: true
list refused as a whole, eli still paid
1. ana   120 paid=false
2. bo    120 paid=false
3. dee   120 paid=false
4. cy     95 paid=true
5. eli    90 paid=true
bo: rank 2 competition rank 1
around bo: 1:ana 2:bo 3:dee
100..130 points: 3 players
100..130 points, ranked: 1:ana 2:bo 3:dee | 120 points within the hour: 2
around 100 points: 3:dee=120 4:cy=95
pages: ana bo | dee cy
count: 5
`

// TestDemo runs the Board API tour's longer form (docs/board-api.md) against the test server.
func TestDemo(t *testing.T) {
	var out bytes.Buffer
	if err := run(context.Background(), &out, redistest.Client(t), redistest.Key(t, "{arena}")); err != nil {
		t.Fatal(err)
	}
	if out.String() != want {
		t.Fatalf("output:\n%s\nwant:\n%s", out.String(), want)
	}
}
