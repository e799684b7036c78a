// Package benchmodel writes GGUF files of a llama-architecture model with
// random weights in the exact shape of a real one, with the real Llama 3.2
// tokenizer, so that an inference server such as Ollama does the real
// amount of work per token: Hark's benchmarks measure prompt processing,
// prompt caching and generation against it without downloading a model.
// The answers are nonsense; only the arithmetic is real.
//
// It is used by cmd/benchmodel and the bench-model make target, which
// imports the file into a local Ollama with the chat template llama32.gotmpl.
package benchmodel

import (
	"cmp"
	"context"
	"fmt"
	"math"
	"os"
	"path/filepath"

	"github.com/ollama/ollama/fs/ggml"
)

// Shape is the hyper-parameters of a llama-architecture transformer: the
// numbers its GGUF metadata and tensor shapes are made from. The vocabulary
// is not part of it; it comes from the Vocab given to Write.
type Shape struct {
	Name          string  // general.name
	Layers        int     // transformer blocks
	Embedding     int     // hidden size
	FeedForward   int     // the MLP's inner size
	Heads         int     // attention heads
	KVHeads       int     // key/value heads (grouped-query attention)
	ContextLength int     // trained context, in tokens
	RopeBase      float32 // rope theta
	NormEpsilon   float32 // RMS norm epsilon

	// RopeScaling, when its Factor is not 0, is Llama 3's rope scaling: the
	// per-frequency factors go into the rope_freqs.weight tensor.
	RopeScaling RopeScaling
}

// RopeScaling is Llama 3's ("llama3" rope_type) frequency scaling.
type RopeScaling struct {
	Factor          float32
	LowFreqFactor   float32
	HighFreqFactor  float32
	OriginalContext int
}

// Llama32_1B is Llama 3.2 1B Instruct: 1.24 billion parameters, with the
// output projection tied to the token embedding.
var Llama32_1B = Shape{
	Name:          "Llama 3.2 1B Instruct shape, random weights",
	Layers:        16,
	Embedding:     2048,
	FeedForward:   8192,
	Heads:         32,
	KVHeads:       8,
	ContextLength: 131072,
	RopeBase:      500000,
	NormEpsilon:   1e-5,
	RopeScaling:   RopeScaling{Factor: 32, LowFreqFactor: 1, HighFreqFactor: 4, OriginalContext: 8192},
}

// Tiny is a two-block model with Llama 3.2's vocabulary and small layers,
// for tests: its file is about 24 MB, most of it the token embedding and
// the rest the tokenizer.
var Tiny = Shape{
	Name:          "tiny llama shape, random weights",
	Layers:        2,
	Embedding:     64,
	FeedForward:   128,
	Heads:         4,
	KVHeads:       2,
	ContextLength: 2048,
	RopeBase:      500000,
	NormEpsilon:   1e-5,
	RopeScaling:   RopeScaling{Factor: 32, LowFreqFactor: 1, HighFreqFactor: 4, OriginalContext: 8192},
}

// HeadDim is the size of one attention head.
func (s Shape) HeadDim() int { return s.Embedding / s.Heads }

func (s Shape) validate() error {
	switch {
	case s.Layers <= 0 || s.Embedding <= 0 || s.FeedForward <= 0 || s.Heads <= 0 || s.KVHeads <= 0:
		return fmt.Errorf("shape %q: layers, embedding, feed-forward and head counts must be positive", s.Name)
	case s.Embedding%s.Heads != 0 || s.HeadDim()%2 != 0:
		return fmt.Errorf("shape %q: embedding %d is not an even head size times %d heads", s.Name, s.Embedding, s.Heads)
	case s.Heads%s.KVHeads != 0:
		return fmt.Errorf("shape %q: %d heads are not a multiple of %d key/value heads", s.Name, s.Heads, s.KVHeads)
	}
	return nil
}

// ropeFactors are Llama 3's per-frequency rope scaling factors, one for
// each pair of a head's dimensions, computed as Meta's reference code and
// Ollama's converter do.
func (s Shape) ropeFactors() []float32 {
	r := s.RopeScaling
	dim := s.HeadDim()
	original := float64(cmp.Or(r.OriginalContext, 8192))
	low, high := float64(cmp.Or(r.LowFreqFactor, 1)), float64(cmp.Or(r.HighFreqFactor, 4))
	lambdaLow, lambdaHigh := original/low, original/high
	factors := make([]float32, 0, dim/2)
	for i := 0; i < dim; i += 2 {
		lambda := 2 * math.Pi * math.Pow(float64(s.RopeBase), float64(i)/float64(dim))
		switch {
		case lambda < lambdaHigh:
			factors = append(factors, 1)
		case lambda > lambdaLow:
			factors = append(factors, r.Factor)
		default:
			smooth := (original/lambda - low) / (high - low)
			factors = append(factors, float32(1/((1-smooth)/float64(r.Factor)+smooth)))
		}
	}
	return factors
}

// KV is the GGUF metadata of a model of shape s with vocabulary v, with
// the keys and value types Ollama's converter writes for a llama.
func KV(s Shape, v *Vocab) ggml.KV {
	return ggml.KV{
		"general.architecture":         "llama",
		"general.type":                 "model",
		"general.name":                 s.Name,
		"general.file_type":            uint32(1), // mostly F16
		"general.quantization_version": uint32(2),

		"llama.vocab_size":                       uint32(len(v.Tokens)),
		"llama.block_count":                      uint32(s.Layers),
		"llama.context_length":                   uint32(s.ContextLength),
		"llama.embedding_length":                 uint32(s.Embedding),
		"llama.feed_forward_length":              uint32(s.FeedForward),
		"llama.attention.head_count":             uint32(s.Heads),
		"llama.attention.head_count_kv":          uint32(s.KVHeads),
		"llama.attention.key_length":             uint32(s.HeadDim()),
		"llama.attention.value_length":           uint32(s.HeadDim()),
		"llama.attention.layer_norm_rms_epsilon": s.NormEpsilon,
		"llama.rope.dimension_count":             uint32(s.HeadDim()),
		"llama.rope.freq_base":                   s.RopeBase,

		"tokenizer.ggml.model":         "gpt2",
		"tokenizer.ggml.pre":           "llama-bpe",
		"tokenizer.ggml.tokens":        v.Tokens,
		"tokenizer.ggml.token_type":    v.Types,
		"tokenizer.ggml.merges":        v.Merges,
		"tokenizer.ggml.bos_token_id":  uint32(BeginOfText),
		"tokenizer.ggml.eos_token_id":  uint32(EndOfTurn),
		"tokenizer.ggml.eos_token_ids": []int32{EndOfText, EndOfMessage, EndOfTurn},
		"tokenizer.ggml.eot_token_id":  uint32(EndOfTurn),
		"tokenizer.ggml.add_bos_token": true,
		"tokenizer.ggml.add_eos_token": false,
	}
}

// Tensors lists the tensors of a model of shape s with a vocabulary of
// vocab tokens, with GGUF's dimension order (the row length first), each
// writing random weights drawn from seed. The output projection is tied to
// token_embd.weight, as in Llama 3.2 1B, so there is no output.weight.
func Tensors(s Shape, vocab int, seed uint64) []*ggml.Tensor {
	e, ff, kv := uint64(s.Embedding), uint64(s.FeedForward), uint64(s.KVHeads*s.HeadDim())
	var ts []*ggml.Tensor
	add := func(name string, w weights, shape ...uint64) {
		w.n = 1
		for _, d := range shape {
			w.n *= d
		}
		ts = append(ts, &ggml.Tensor{Name: name, Kind: w.kind(), Shape: shape, WriterTo: w})
	}
	matrix := func(name string) weights {
		return weights{seed: seed, name: name, std: 0.02}
	}
	norm := weights{value: 1, f32: true}

	add("token_embd.weight", matrix("token_embd.weight"), e, uint64(vocab))
	add("output_norm.weight", norm, e)
	if s.RopeScaling.Factor != 0 {
		add("rope_freqs.weight", weights{values: s.ropeFactors(), f32: true}, uint64(s.HeadDim()/2))
	}
	for i := range s.Layers {
		blk := func(n string) string { return fmt.Sprintf("blk.%d.%s.weight", i, n) }
		add(blk("attn_norm"), norm, e)
		add(blk("attn_q"), matrix(blk("attn_q")), e, e)
		add(blk("attn_k"), matrix(blk("attn_k")), e, kv)
		add(blk("attn_v"), matrix(blk("attn_v")), e, kv)
		add(blk("attn_output"), matrix(blk("attn_output")), e, e)
		add(blk("ffn_norm"), norm, e)
		add(blk("ffn_gate"), matrix(blk("ffn_gate")), e, ff)
		add(blk("ffn_up"), matrix(blk("ffn_up")), e, ff)
		add(blk("ffn_down"), matrix(blk("ffn_down")), ff, e)
	}
	return ts
}

// Write writes a GGUF model of shape s with vocabulary v and random weights
// drawn from seed to path: the same seed gives the same file. The weights
// are generated while they are written, a few megabytes at a time, by as
// many goroutines as GOMAXPROCS; the file appears at path only once it is
// complete. Cancelling ctx stops the write and returns ctx's error.
func Write(ctx context.Context, path string, s Shape, v *Vocab, seed uint64) (err error) {
	if err := s.validate(); err != nil {
		return fmt.Errorf("benchmodel: %w", err)
	}
	f, err := os.CreateTemp(filepath.Dir(path), "."+filepath.Base(path)+".tmp-*")
	if err != nil {
		return fmt.Errorf("benchmodel: %w", err)
	}
	tmp := f.Name()
	defer func() {
		if err != nil {
			f.Close()
			os.Remove(tmp)
		}
	}()
	// Closing the file fails the writes in flight and the ones after them.
	stop := context.AfterFunc(ctx, func() { f.Close() })
	err = ggml.WriteGGUF(f, KV(s, v), Tensors(s, len(v.Tokens), seed))
	if !stop() {
		return fmt.Errorf("benchmodel: write %s: %w", path, ctx.Err())
	}
	if err != nil {
		return fmt.Errorf("benchmodel: write %s: %w", path, err)
	}
	if err := f.Chmod(0o644); err != nil {
		return fmt.Errorf("benchmodel: %w", err)
	}
	if err := f.Close(); err != nil {
		return fmt.Errorf("benchmodel: write %s: %w", path, err)
	}
	if err := os.Rename(tmp, path); err != nil {
		return fmt.Errorf("benchmodel: %w", err)
	}
	return nil
}
