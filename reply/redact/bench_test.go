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

// toolJSON is a tool's answer as Home Assistant, a router or an MCP
// server writes it: objects of named values, lists, counts, and a few
// credentials among them.
func toolJSON(n int) string {
	parts := []string{`{"entity_id": "light.kitchen", "state": "on", "attributes": {"friendly_name": "Kitchen lamp", "brightness": 180}}, `,
		`{"name": "kitchen lamp", "value": "on", "unit": null}, `, `{"name": "temperature", "value": 21.5, "unit": "°C"}, `,
		`{"ssid": "Garden", "wifi_password": "sunflower-42", "channels": [1, 6, 11]}, `, `{"tokens_used": 42, "max_tokens": 512, "tags": ["a", "b"]}, `,
		`{"key": "living_room", "value": "dim", "options": ["off", "dim", "on"]}, `, `{"result": "{\"value\": \"12:30\", \"label\": \"alarm\"}"}, `,
		"\n"}
	var b strings.Builder
	b.WriteString("[")
	for i := 0; b.Len() < n; i++ {
		b.WriteString(parts[i%len(parts)])
	}
	b.WriteString("{}]")
	return b.String()
}

// BenchmarkRedactJSON is a megabyte of a tool's JSON: many keys, many
// of them "name" and "value".
func BenchmarkRedactJSON(b *testing.B) {
	s := toolJSON(1 << 20)
	b.SetBytes(int64(len(s)))
	for b.Loop() {
		New().Redact(s)
	}
}
