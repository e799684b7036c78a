package pcm

import "math"

// Filter design. The low-pass is a Kaiser-windowed sinc with zeroCrossings
// zero crossings each side, cut off at rolloff of the lower Nyquist frequency
// so that the transition band ends below it: 48 kHz audio becomes 16 kHz
// speech without folding the 8–24 kHz band back onto the voice.
const (
	zeroCrossings = 16
	rolloff       = 0.94
	kaiserBeta    = 8.6
	// maxTable bounds the precomputed polyphase table (taps); odd rate pairs
	// with a huge common period compute their taps on the fly instead.
	maxTable = 1 << 20
)

// Resampler converts a stream of interleaved samples from one rate to another.
// It keeps the filter history between calls, so feeding a signal in pieces
// gives the same output as feeding it whole. A Resampler is not safe for
// concurrent use.
type Resampler struct {
	from, to, ch int
	l, m         int64     // to/from in lowest terms: one output per m/l input frames
	half         int       // filter half-width in input frames
	cutoff       float64   // cutoff as a fraction of the input rate's Nyquist frequency
	table        []float32 // l phases × 2·half taps, nil when too large
	hist         []float32 // input frames still needed, interleaved
	t            int64     // next output's position in 1/l input frames from hist[0]
	in, out      int64     // frames taken and produced so far
}

// NewResampler returns a Resampler from rate from to rate to for ch
// interleaved channels.
func NewResampler(from, to, ch int) *Resampler {
	g := gcd(int64(from), int64(to))
	r := &Resampler{from: from, to: to, ch: ch, l: int64(to) / g, m: int64(from) / g}
	r.cutoff = rolloff * math.Min(1, float64(to)/float64(from))
	r.half = int(math.Ceil(zeroCrossings / r.cutoff))
	if r.l*int64(2*r.half) <= maxTable {
		r.table = make([]float32, r.l*int64(2*r.half))
		for p := range r.l {
			r.taps(p, r.table[p*int64(2*r.half):(p+1)*int64(2*r.half)])
		}
	}
	r.hist = make([]float32, r.half*ch) // silence before the first sample
	r.t = int64(r.half) * r.l
	return r
}

// taps fills dst with the filter for phase p (output position p/l of an input
// frame past its base frame), normalised to unity gain at DC.
func (r *Resampler) taps(p int64, dst []float32) {
	frac := float64(p) / float64(r.l)
	var sum float64
	w := make([]float64, len(dst))
	for i := range dst {
		x := frac - float64(i-r.half+1) // distance from the output position to input frame base+j
		w[i] = r.kernel(x)
		sum += w[i]
	}
	for i := range dst {
		dst[i] = float32(w[i] / sum)
	}
}

func (r *Resampler) kernel(x float64) float64 {
	ratio := x / float64(r.half)
	if ratio <= -1 || ratio >= 1 {
		return 0
	}
	s := 1.0
	if u := math.Pi * r.cutoff * x; u != 0 {
		s = math.Sin(u) / u
	}
	return r.cutoff * s * bessel0(kaiserBeta*math.Sqrt(1-ratio*ratio)) / bessel0(kaiserBeta)
}

// Process resamples the interleaved frames in and returns the output frames
// that are complete so far. The filter looks ahead half its width, so output
// lags input by that much until Flush.
func (r *Resampler) Process(in []float32) []float32 {
	if r.from == r.to {
		r.in += int64(len(in) / r.ch)
		r.out = r.in
		return append([]float32(nil), in...)
	}
	r.in += int64(len(in) / r.ch)
	r.hist = append(r.hist, in...)
	return r.run(-1)
}

// Flush returns the remaining output: it pads the input with silence until
// every input frame has been accounted for, so that a whole signal of n frames
// yields ceil(n·to/from) frames. The Resampler can be reused afterwards for a
// new signal.
func (r *Resampler) Flush() []float32 {
	if r.from == r.to {
		return nil
	}
	want := (r.in*int64(r.to) + int64(r.from) - 1) / int64(r.from)
	r.hist = append(r.hist, make([]float32, (r.half+1)*r.ch)...)
	out := r.run(want - r.out)
	*r = *NewResampler(r.from, r.to, r.ch)
	return out
}

// run produces outputs while the filter has all the input it needs, at most
// limit of them when limit is not negative.
func (r *Resampler) run(limit int64) []float32 {
	frames := int64(len(r.hist) / r.ch)
	taps := 2 * r.half
	var out []float32
	var scratch []float32
	for limit != 0 {
		base := r.t / r.l
		if base+int64(r.half) >= frames {
			break
		}
		p := r.t % r.l
		var h []float32
		if r.table != nil {
			h = r.table[p*int64(taps) : (p+1)*int64(taps)]
		} else {
			if scratch == nil {
				scratch = make([]float32, taps)
			}
			r.taps(p, scratch)
			h = scratch
		}
		first := int(base) - r.half + 1
		for c := range r.ch {
			var acc float32
			for i, k := range h {
				acc += k * r.hist[(first+i)*r.ch+c]
			}
			out = append(out, acc)
		}
		r.t += r.m
		r.out++
		if limit > 0 {
			limit--
		}
	}
	// Drop input frames no future output will reach.
	if drop := r.t/r.l - int64(r.half) + 1; drop > 0 {
		n := copy(r.hist, r.hist[drop*int64(r.ch):])
		r.hist = r.hist[:n]
		r.t -= drop * r.l
	}
	return out
}

// Resample returns b at rate. It filters the whole buffer in one go; use a
// Resampler for a live stream.
func Resample(b Buffer, rate int) Buffer {
	if b.Rate == rate {
		return Buffer{Rate: rate, Channels: b.Channels, Samples: append([]float32(nil), b.Samples...)}
	}
	r := NewResampler(b.Rate, rate, b.Channels)
	out := r.Process(b.Samples)
	out = append(out, r.Flush()...)
	return Buffer{Rate: rate, Channels: b.Channels, Samples: out}
}

// bessel0 is the modified Bessel function of the first kind, order zero, by
// its power series; it converges quickly for the arguments a Kaiser window uses.
func bessel0(x float64) float64 {
	sum, term := 1.0, 1.0
	for k := 1; k < 64; k++ {
		term *= (x / (2 * float64(k))) * (x / (2 * float64(k)))
		sum += term
		if term < 1e-12*sum {
			break
		}
	}
	return sum
}

func gcd(a, b int64) int64 {
	for b != 0 {
		a, b = b, a%b
	}
	return a
}
