package main

import (
	"strings"
	"testing"
)

// hark ask --continue takes up what the last hark ask left for a
// follow-up, with no model server: the timer it set ("make it 10
// minutes"), the question it asked ("For how long?"). Without --continue
// a question carries nothing.
func TestAskContinueFollowsUpOffline(t *testing.T) {
	dir := t.TempDir()
	getenv := vars(map[string]string{"OLLAMA_HOST": "http://" + deadPort(t), "HOME": t.TempDir()})
	for _, c := range []struct {
		args []string
		code int
		want string
	}{
		{[]string{"set a timer for 5 minutes"}, 0, "Timer set for 5 minutes.\n"},
		{[]string{"--continue", "make it 10 minutes"}, 0, "OK, the timer is now 10 minutes.\n"},
		{[]string{"set a timer"}, 0, "For how long?\n"},
		{[]string{"--continue", "5 minutes"}, 0, "Timer set for 5 minutes.\n"},
		{[]string{"make it 20 minutes"}, 1, "I didn't understand that, and I can't reach my language model right now.\n"},
		{[]string{"what is 3 plus 4"}, 0, "3 plus 4 is 7.\n"},
		{[]string{"--continue", "and times 3"}, 0, "7 times 3 is 21.\n"},
	} {
		code, out, errOut := ask(t, getenv, append([]string{"ask", "--data", dir}, c.args...)...)
		if code != c.code || out != c.want {
			t.Errorf("hark ask %q: code %d, stdout %q (stderr %q); want %d, %q", c.args, code, out, errOut, c.code, c.want)
		}
	}
	code, out, _ := ask(t, getenv, "timers", "--data", dir)
	if code != 0 || strings.Count(out, "\ntimer ") != 2 || !strings.Contains(out, "  9m") && !strings.Contains(out, "  10m") {
		t.Errorf("hark timers: code %d\n%s\nwant two timers, the first changed", code, out)
	}
}
