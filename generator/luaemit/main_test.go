package luaemit

import (
	"testing"

	"github.com/rankgen/rankgen/internal/testkit/redistest"
)

// TestMain runs the package's tests with redistest's shared servers (the feed differential
// runs on one server and a cluster), stopped when they end.
func TestMain(m *testing.M) { redistest.Main(m) }
