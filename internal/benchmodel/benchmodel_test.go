package benchmodel

import (
	"context"
	"crypto/sha256"
	"encoding/binary"
	"errors"
	"fmt"
	"maps"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/ollama/ollama/fs/ggml"
)

func vocab(t *testing.T) *Vocab {
	t.Helper()
	if _, err := exec.LookPath("go"); err != nil {
		t.Skip("no go command to find ollama's module (and its Llama 3.2 tokenizer) with")
	}
	dir, err := FindVocab(t.Context())
	if err != nil {
		t.Fatal(err)
	}
	v, err := LoadVocab(dir)
	if err != nil {
		t.Fatal(err)
	}
	return v
}

func TestLoadVocab(t *testing.T) {
	v := vocab(t)
	if len(v.Tokens) != VocabSize || len(v.Types) != VocabSize {
		t.Fatalf("got %d tokens, %d types, want %d", len(v.Tokens), len(v.Types), VocabSize)
	}
	for _, tc := range []struct {
		id   int
		tok  string
		kind int32
	}{
		{0, "!", tokenNormal},
		{15339, "hello", tokenNormal},
		{127999, v.Tokens[127999], tokenNormal},
		{BeginOfText, "<|begin_of_text|>", tokenControl},
		{EndOfText, "<|end_of_text|>", tokenControl},
		{FinetunePad, "<|finetune_right_pad_id|>", tokenControl},
		{StartHeader, "<|start_header_id|>", tokenControl},
		{EndHeader, "<|end_header_id|>", tokenControl},
		{EndOfMessage, "<|eom_id|>", tokenControl},
		{EndOfTurn, "<|eot_id|>", tokenControl},
		{PythonTag, "<|python_tag|>", tokenControl},
		{128011, "<|reserved_special_token_3|>", tokenControl},
		{128255, "<|reserved_special_token_247|>", tokenControl},
	} {
		if v.Tokens[tc.id] != tc.tok || v.Types[tc.id] != tc.kind {
			t.Errorf("token %d: got %q type %d, want %q type %d", tc.id, v.Tokens[tc.id], v.Types[tc.id], tc.tok, tc.kind)
		}
	}
	if len(v.Merges) != 280147 || v.Merges[0] != "Ġ Ġ" {
		t.Errorf("got %d merges, the first %q; want 280147, the first %q", len(v.Merges), v.Merges[0], "Ġ Ġ")
	}
}

// TestWriteTiny writes the tiny shape and reads it back with Ollama's own
// GGUF decoder.
func TestWriteTiny(t *testing.T) {
	v := vocab(t)
	path := filepath.Join(t.TempDir(), "tiny.gguf")
	if err := Write(t.Context(), path, Tiny, v, 1); err != nil {
		t.Fatal(err)
	}
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	g, err := ggml.Decode(f, -1)
	if err != nil {
		t.Fatal(err)
	}

	kv := g.KV()
	if got := kv.Architecture(); got != "llama" {
		t.Errorf("architecture: got %q, want llama", got)
	}
	for key, want := range map[string]uint32{
		"vocab_size":                  VocabSize,
		"block_count":                 2,
		"embedding_length":            64,
		"feed_forward_length":         128,
		"attention.head_count":        4,
		"attention.head_count_kv":     2,
		"rope.dimension_count":        16,
		"context_length":              2048,
		"tokenizer.ggml.bos_token_id": BeginOfText,
		"tokenizer.ggml.eos_token_id": EndOfTurn,
		"general.file_type":           1,
	} {
		if got := kv.Uint(key); got != want {
			t.Errorf("%s: got %d, want %d", key, got, want)
		}
	}
	if got := kv.Float("rope.freq_base"); got != 500000 {
		t.Errorf("rope.freq_base: got %v, want 500000", got)
	}
	if got, want := kv.String("tokenizer.ggml.model")+" "+kv.String("tokenizer.ggml.pre"), "gpt2 llama-bpe"; got != want {
		t.Errorf("tokenizer: got %q, want %q", got, want)
	}
	if toks := kv.Strings("tokenizer.ggml.tokens"); len(toks) != VocabSize || toks[EndOfTurn] != "<|eot_id|>" {
		t.Errorf("got %d tokens, want %d with <|eot_id|> at %d", len(toks), VocabSize, EndOfTurn)
	}
	if got := len(kv.Strings("tokenizer.ggml.merges")); got != len(v.Merges) {
		t.Errorf("got %d merges, want %d", got, len(v.Merges))
	}
	if got, want := kv.Ints("tokenizer.ggml.eos_token_ids"), []int32{EndOfText, EndOfMessage, EndOfTurn}; !slices.Equal(got, want) {
		t.Errorf("eos_token_ids: got %v, want %v", got, want)
	}

	want := map[string][]uint64{
		"token_embd.weight":  {64, VocabSize},
		"output_norm.weight": {64},
		"rope_freqs.weight":  {8},
	}
	for i := range 2 {
		for name, shape := range map[string][]uint64{
			"attn_norm": {64}, "attn_q": {64, 64}, "attn_k": {64, 32}, "attn_v": {64, 32},
			"attn_output": {64, 64}, "ffn_norm": {64},
			"ffn_gate": {64, 128}, "ffn_up": {64, 128}, "ffn_down": {128, 64},
		} {
			want[fmt.Sprintf("blk.%d.%s.weight", i, name)] = shape
		}
	}
	ts := g.Tensors().Items()
	if len(ts) != len(want) {
		t.Errorf("got %d tensors, want %d", len(ts), len(want))
	}
	var params uint64
	for _, tn := range ts {
		params += tn.Elements()
		shape, ok := want[tn.Name]
		if !ok {
			t.Errorf("unexpected tensor %s", tn.Name)
			continue
		}
		if !slices.Equal(tn.Shape, shape) {
			t.Errorf("%s: got shape %v, want %v", tn.Name, tn.Shape, shape)
		}
		wantKind := uint32(kindF16)
		if len(shape) == 1 {
			wantKind = kindF32
		}
		if tn.Kind != wantKind {
			t.Errorf("%s: got kind %d, want %d", tn.Name, tn.Kind, wantKind)
		}
	}
	if got := kv.ParameterCount(); got != params {
		t.Errorf("general.parameter_count: got %d, want %d", got, params)
	}

	// The data: norms are 1, weights small and random.
	data := func(name string) []byte {
		t.Helper()
		for _, tn := range ts {
			if tn.Name == name {
				b := make([]byte, tn.Size())
				if _, err := f.ReadAt(b, int64(g.Tensors().Offset+tn.Offset)); err != nil {
					t.Fatal(err)
				}
				return b
			}
		}
		t.Fatalf("no tensor %s", name)
		return nil
	}
	for i, b := range slices.Collect(slices.Chunk(data("blk.1.ffn_norm.weight"), 4)) {
		if got := math.Float32frombits(binary.LittleEndian.Uint32(b)); got != 1 {
			t.Fatalf("blk.1.ffn_norm.weight[%d]: got %v, want 1", i, got)
		}
	}
	var sum, sq float64
	q := data("blk.0.attn_q.weight")
	for b := range slices.Chunk(q, 2) {
		x := float64(halfToFloat(binary.LittleEndian.Uint16(b)))
		sum += x
		sq += x * x
	}
	n := float64(len(q) / 2)
	if mean, std := sum/n, math.Sqrt(sq/n); math.Abs(mean) > 0.002 || math.Abs(std-0.02) > 0.002 {
		t.Errorf("blk.0.attn_q.weight: mean %.4f, std %.4f; want about 0 and 0.02", mean, std)
	}
}

// TestSeed checks that the same seed gives the same weights and another
// seed other ones, whatever the order the tensors are written in.
func TestSeed(t *testing.T) {
	sums := func(seed uint64) map[string][32]byte {
		m := map[string][32]byte{}
		ts := Tensors(Tiny, VocabSize, seed)
		slices.Reverse(ts)
		for _, tn := range ts {
			h := sha256.New()
			if _, err := tn.WriteTo(h); err != nil {
				t.Fatal(err)
			}
			m[tn.Name] = [32]byte(h.Sum(nil))
		}
		return m
	}
	one, again, two := sums(1), sums(1), sums(2)
	if !maps.Equal(one, again) {
		t.Error("two runs with seed 1 differ")
	}
	for name := range one {
		random := name != "rope_freqs.weight" && !strings.HasSuffix(name, "norm.weight")
		if same := one[name] == two[name]; same == random {
			t.Errorf("%s: seeds 1 and 2 give the same weights: %v, want %v", name, same, !random)
		}
	}
}

func TestWriteCancelled(t *testing.T) {
	ctx, cancel := context.WithCancel(t.Context())
	cancel()
	dir := t.TempDir()
	path := filepath.Join(dir, "cancelled.gguf")
	v := &Vocab{Tokens: []string{"a"}, Types: []int32{tokenNormal}}
	if err := Write(ctx, path, Tiny, v, 1); !errors.Is(err, context.Canceled) {
		t.Errorf("got %v, want context.Canceled", err)
	}
	if left, _ := os.ReadDir(dir); len(left) != 0 {
		t.Errorf("a cancelled write left %v", left)
	}
}

func TestWriteBadShape(t *testing.T) {
	bad := Tiny
	bad.KVHeads = 3
	path := filepath.Join(t.TempDir(), "bad.gguf")
	if err := Write(t.Context(), path, bad, &Vocab{}, 1); err == nil {
		t.Fatal("a shape with 4 heads and 3 key/value heads was written")
	}
	if _, err := os.Stat(path); !os.IsNotExist(err) {
		t.Errorf("a failed write left %s: %v", path, err)
	}
}

// TestLlama32_1B checks the shape's parameter count against Meta's
// published 1,235,814,400 (which leaves out rope_freqs).
func TestLlama32_1B(t *testing.T) {
	var params uint64
	var names []string
	for _, tn := range Tensors(Llama32_1B, VocabSize, 0) {
		params += tn.Elements()
		names = append(names, tn.Name)
	}
	if want := uint64(1_235_814_400 + 32); params != want {
		t.Errorf("got %d parameters, want %d", params, want)
	}
	if len(names) != 147 {
		t.Errorf("got %d tensors, want 147", len(names))
	}
	if slices.Contains(names, "output.weight") {
		t.Error("output.weight is there: Llama 3.2 1B ties it to token_embd.weight")
	}

	f := Llama32_1B.ropeFactors()
	if len(f) != 32 || f[0] != 1 || f[31] != 32 || !slices.IsSorted(f) {
		t.Errorf("rope factors: got %v, want 32 rising from 1 to 32", f)
	}
}

func TestFloat16(t *testing.T) {
	for _, tc := range []struct {
		in   float32
		want uint16
	}{
		{0, 0},
		{float32(math.Copysign(0, -1)), 0x8000},
		{1, 0x3c00},
		{-2, 0xc000},
		{0.02, 0x251f},
		{65504, 0x7bff},
		{65520, 0x7c00}, // rounds up to infinity
		{1e6, 0x7c00},
		{float32(math.Inf(-1)), 0xfc00},
		{6.103515625e-05, 0x0400},       // the smallest normal
		{5.960464477539063e-08, 0x0001}, // the smallest subnormal
		{2.98023223876953125e-08, 0},    // half of it: a tie, to even
		{1 + 1.0/2048, 0x3c00},          // a tie, to even
		{1 + 3.0/2048, 0x3c02},          // a tie, to even
	} {
		if got := float16(tc.in); got != tc.want {
			t.Errorf("float16(%g): got %#04x, want %#04x", tc.in, got, tc.want)
		}
	}
	if got := float16(float32(math.NaN())); got&0x7c00 != 0x7c00 || got&0x3ff == 0 {
		t.Errorf("float16(NaN): got %#04x, not a NaN", got)
	}
	// Every half but the NaNs survives a trip through float32.
	for h := range 1 << 16 {
		if h&0x7c00 == 0x7c00 && h&0x3ff != 0 {
			continue
		}
		if got := float16(halfToFloat(uint16(h))); got != uint16(h) {
			t.Fatalf("float16(%g): got %#04x, want %#04x", halfToFloat(uint16(h)), got, h)
		}
	}
}

func halfToFloat(h uint16) float32 {
	sign := float32(1)
	if h&0x8000 != 0 {
		sign = -1
	}
	exp, mant := int(h>>10&0x1f), float64(h&0x3ff)
	switch exp {
	case 0:
		return sign * float32(math.Ldexp(mant, -24))
	case 31:
		return sign * float32(math.Inf(1))
	}
	return sign * float32(math.Ldexp(1024+mant, exp-25))
}
