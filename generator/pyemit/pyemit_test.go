package pyemit

import (
	"strings"
	"testing"
)

// TestNames: schema names become snake case, keywords get "_", and two names with one Python
// name are an error naming both.
func TestNames(t *testing.T) {
	for in, want := range map[string]string{"RaceTime": "race_time", "PlayerID": "player_id", "HTTPServer": "http_server",
		"Laps": "laps", "Class": "class_", "Top10": "top10", "ID": "id", "Points_2": "points_2"} {
		taken := map[string]string{}
		if got, err := attr(in, taken); err != nil || got != want {
			t.Errorf("attr(%q) = %q, %v; want %q", in, got, err, want)
		}
	}
	taken := map[string]string{}
	if _, err := attr("RaceTime", taken); err != nil {
		t.Fatal(err)
	}
	if _, err := attr("Race_Time", taken); err == nil || !strings.Contains(err.Error(), "RaceTime and Race_Time") {
		t.Errorf("a second name for race_time: %v", err)
	}
}

// TestLiterals: text reaches Python literals and docstrings unchanged.
func TestLiterals(t *testing.T) {
	for in, want := range map[string]string{`a"b\c`: `"a\"b\\c"`, "x\ny\x01": `"x\ny\x01"`, "é": `"é"`} {
		if got := pyString(in); got != want {
			t.Errorf("pyString(%q) = %s, want %s", in, got, want)
		}
	}
	if got := pyBytes("|\xff\""); got != `b"|\xff\""` {
		t.Errorf("pyBytes = %s", got)
	}
	if got := docText(`say """hi""" \`); got != `say \"\"\"hi\"\"\" \\` {
		t.Errorf("docText = %s", got)
	}
	if got := strings.Join(pyLines("a\nb"), "+"); got != `"a\n"+"b"` {
		t.Errorf("pyLines = %s", got)
	}
}
