package redact

import (
	"strings"
	"testing"
)

// household is text as a long transcript or a node's pasted message reads:
// mostly words, with numbers, dates, an address, a card, a code and an
// IBAN among them.
func household(n int) string {
	parts := []string{"Call me on 0151 2345 678 tomorrow morning.", "My card is 4111 1111 1111 1111, please keep it.",
		"The gate code is 1234 and the alarm is set.", "Send it to GB82 WEST 1234 5698 7654 32 by Friday.",
		"Mail bob@example.com about the party.", "On 2026-11-27 at 12:30 we met 42 people in the hall.",
		"We talked about the garden, the weather and what to cook for dinner tonight.\n"}
	var b strings.Builder
	for i := 0; b.Len() < n; i++ {
		b.WriteString(parts[i%len(parts)])
		b.WriteString(" ")
	}
	return b.String()
}

// BenchmarkRedact1MB is a megabyte of household text through a fresh
// Redactor: the bound is 100 ms, and it was quadratic once (a 60 KB
// message cost 1.8 s).
func BenchmarkRedact1MB(b *testing.B) {
	s := household(1 << 20)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		New().Redact(s)
	}
}

// BenchmarkRedactProse is a megabyte of words with nothing to redact.
func BenchmarkRedactProse(b *testing.B) {
	s := strings.Repeat("We talked about the garden, the weather and what to cook for dinner tonight. ", (1<<20)/78)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		New().Redact(s)
	}
}
