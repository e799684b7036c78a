package control

import (
	"fmt"
	"slices"
	"testing"
)

func TestLogTail(t *testing.T) {
	tests := []struct {
		name   string
		keep   int
		writes []string
		n      int
		want   []string
	}{
		{"empty", 3, nil, 10, nil},
		{"fewer than kept", 3, []string{"a\nb\n"}, 10, []string{"a", "b"}},
		{"wraps", 3, []string{"a\nb\nc\nd\ne\n"}, 10, []string{"c", "d", "e"}},
		{"last n", 5, []string{"a\nb\nc\n"}, 2, []string{"b", "c"}},
		{"line split across writes", 3, []string{"hel", "lo\nwor", "ld\n", "unfinished"}, 10, []string{"hello", "world"}},
		{"exactly full", 2, []string{"a\nb\n"}, 10, []string{"a", "b"}},
	}
	for _, tt := range tests {
		t.Run(tt.name, func(t *testing.T) {
			lt := NewLogTail(tt.keep)
			for _, w := range tt.writes {
				fmt.Fprint(lt, w)
			}
			if got := lt.Tail(tt.n); !slices.Equal(got, tt.want) {
				t.Errorf("got %q, want %q", got, tt.want)
			}
		})
	}
}
