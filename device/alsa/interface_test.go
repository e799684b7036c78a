package alsa

import "github.com/harkbox/hark/pipeline"

// The pipeline's interface this package fills, checked here so that the
// package itself needs only pipeline/voice.
var _ pipeline.Speaker = (*Speaker)(nil)
