package guard

import (
	"context"
	"errors"
	"strings"
	"testing"

	"github.com/harkbox/hark/pipeline"
	"github.com/harkbox/hark/pipeline/voice"
)

var _ pipeline.Transcriber = Transcriber{}

func TestCheck(t *testing.T) {
	tests := []struct {
		text, want string // want "" means ErrNoSpeech
	}{
		{" What time is it?", "What time is it?"},
		{"[BLANK_AUDIO]", ""},
		{"(blank audio)", ""},
		{"[ Silence ]", ""},
		{" [laughs] (wind blowing)", ""},
		{"♪♪♪", ""},
		{"*music plays*", ""},
		{"", ""},
		{"   ", ""},
		{" Thank you. Thank you. Thank you. Thank you. Thank you. Thank you.", ""},
		{" I'm going to go. I'm going to go. I'm going to go. I'm going to go.", ""},
		{"thanks thanks thanks thanks thanks thanks thanks thanks", ""},
		{" No, no, no, I said the blue one, not the red one.", "No, no, no, I said the blue one, not the red one."},
		{"Set a timer for ten minutes.", "Set a timer for ten minutes."},

		// Whisper loops whole sentences too, until its window ends.
		{strings.Repeat(" I'll see you next time.", 8), ""},
		{strings.Repeat(" Thank you very much for watching.", 6), ""},
		{strings.Repeat(" We'll be right back after the break.", 3), ""},
		{" I'll see you next time! i'll SEE you next time, I'll see you next time... I'll see you next time I'll see you", ""},
		// People repeat a word or two, a short phrase, or a sentence once.
		{"Very very very good, thank you very much.", "Very very very good, thank you very much."},
		{"Thank you, thank you, thank you!", "Thank you, thank you, thank you!"},
		{"Turn it off, turn it off, turn it off!", "Turn it off, turn it off, turn it off!"},
		{"Add eggs, milk, flour, eggs and butter to the shopping list.", "Add eggs, milk, flour, eggs and butter to the shopping list."},
		{"What's the weather tomorrow? What's the weather tomorrow?", "What's the weather tomorrow? What's the weather tomorrow?"},

		// Captions whisper learned from video subtitles, alone, are no speech.
		{" Thanks for watching!", ""},
		{" Thank you for watching.", ""},
		{" Subtitles by the Amara.org community", ""},
		{" Please subscribe to my channel.", ""},
		{" Thanks for watching! Please subscribe to my channel.", ""},
		{" Untertitel im Auftrag des ZDF, 2017", ""},
		{" Sous-titres réalisés par la communauté d'Amara.org", ""},
		{" ¡Gracias por ver el vídeo!", ""},
		// Their words in what someone says are speech, and so is thanks.
		{" Thank you.", "Thank you."},
		{" Vielen Dank.", "Vielen Dank."},
		{"Thanks for watching the kids, I'll be back at six.", "Thanks for watching the kids, I'll be back at six."},
		{"Please subscribe me to the news podcast.", "Please subscribe me to the news podcast."},
	}
	for _, tt := range tests {
		got, err := Check(tt.text)
		if tt.want == "" {
			if !errors.Is(err, voice.ErrNoSpeech) {
				t.Errorf("Check(%q) = %q, %v; want ErrNoSpeech", tt.text, got, err)
			}
			continue
		}
		if err != nil || got != tt.want {
			t.Errorf("Check(%q) = %q, %v; want %q", tt.text, got, err, tt.want)
		}
	}
}

type says struct {
	text string
	err  error
}

func (s says) Transcribe(context.Context, voice.Utterance) (voice.Transcript, error) {
	return voice.Transcript{Text: s.text, Language: "en"}, s.err
}

func TestTranscriberWrapsAnyEngine(t *testing.T) {
	down := errors.New("wyoming: connection refused")
	tests := []struct {
		engine  says
		want    string
		wantErr error
	}{
		{says{text: " Turn on the lights."}, "Turn on the lights.", nil},
		{says{text: "[BLANK_AUDIO]"}, "", voice.ErrNoSpeech},
		{says{text: "you you you you you you you you you"}, "", voice.ErrNoSpeech},
		// A Wyoming server gives no no-speech probability: on noise it
		// answers with a caption, and only the guard stops it.
		{says{text: " Thanks for watching!"}, "", voice.ErrNoSpeech},
		{says{text: " Thank you."}, "Thank you.", nil},
		{says{err: down}, "", down},
	}
	for _, tt := range tests {
		tr, err := Transcriber{Engine: tt.engine}.Transcribe(t.Context(), voice.Utterance{})
		if tt.wantErr != nil {
			if !errors.Is(err, tt.wantErr) {
				t.Errorf("%+v: err %v, want %v", tt.engine, err, tt.wantErr)
			}
			continue
		}
		if err != nil || tr.Text != tt.want || tr.Language != "en" {
			t.Errorf("%+v: %+v, %v; want %q in English", tt.engine, tr, err, tt.want)
		}
	}
}
