package speech

import (
	"strings"
	"unicode"
)

// Code points that modify the character before them or join it to the
// next: invisible on their own, and all but the zero-width joiner, which
// some scripts need between letters, used only for emoji.
const (
	zwj          = '\u200D' // joins pictographs into one (👩‍🍳), and letters in some scripts
	textStyle    = '\uFE0E' // variation selector-15: draw the previous character as text
	emojiStyle   = '\uFE0F' // variation selector-16: draw it as an emoji
	keycap       = '\u20E3' // combining keycap: 1️⃣
	skinToneMin  = 0x1F3FB
	skinToneMax  = 0x1F3FF
	tagMin       = 0xE0020 // tag characters spell a subdivision flag: 🏴󠁧󠁢󠁳󠁣󠁴󠁿
	tagMax       = 0xE007F
	selectorsMin = 0xE0100 // variation selectors 17 to 256
	selectorsMax = 0xE01EF
)

// pictograph reports a character that is drawn as a picture: the emoji and
// pictograph blocks, the symbols and dingbats small models decorate
// answers with (☀ ✅ ★ ♥), and the few emoji among the technical symbols
// and arrows (⌛ ⏰ ⬆ ⭐). Letters of every script, digits, currency, °, %
// and × are none of these.
func pictograph(r rune) bool {
	switch {
	case r >= 0x1F000 && r <= 0x1FAFF: // playing cards to pictographs, flags, emoticons, transport
		return true
	case r >= 0x2600 && r <= 0x27BF, r >= 0x25A0 && r <= 0x25FF: // miscellaneous symbols, dingbats, geometric shapes
		return unicode.Is(unicode.So, r)
	}
	switch r {
	case 0x231A, 0x231B, 0x2328, 0x23CF, 0x23E9, 0x23EA, 0x23EB, 0x23EC, 0x23ED, 0x23EE, 0x23EF,
		0x23F0, 0x23F1, 0x23F2, 0x23F3, 0x23F8, 0x23F9, 0x23FA, // ⌚ ⌛ ⌨ ⏏ ⏩…⏳ ⏸ ⏹ ⏺
		0x2B05, 0x2B06, 0x2B07, 0x2B1B, 0x2B1C, 0x2B50, 0x2B55: // ⬅ ⬆ ⬇ ⬛ ⬜ ⭐ ⭕
		return true
	}
	return false
}

// modifier reports a character that only changes the emoji before it.
func modifier(r rune) bool {
	return r == zwj || r == textStyle || r == emojiStyle || r == keycap ||
		r >= skinToneMin && r <= skinToneMax || r >= tagMin && r <= tagMax || r >= selectorsMin && r <= selectorsMax
}

// withoutEmoji removes emoji from s, whole sequences at once (a flag, a
// family joined by zero-width joiners, a skin tone), so that the voice
// never reads out their names ("smiling face with smiling eyes"). Any
// character asked to be drawn as an emoji (followed by U+FE0F) goes too,
// but the digit of a keycap stays, and a joiner between letters, which
// some scripts need, is kept. The space before a removed emoji goes when
// punctuation or a space follows it; words an emoji stood between stay
// apart.
func withoutEmoji(s string) string {
	if !strings.ContainsFunc(s, func(r rune) bool { return pictograph(r) || modifier(r) }) {
		return s
	}
	runes := []rune(s)
	var b strings.Builder
	for i := 0; i < len(runes); {
		r := runes[i]
		asEmoji := i+1 < len(runes) && runes[i+1] == emojiStyle && !strings.ContainsRune("0123456789#*", r)
		switch {
		case pictograph(r) || asEmoji:
		case r == zwj:
			b.WriteRune(r) // not in an emoji sequence: it joins letters
			i++
			continue
		case modifier(r):
			i++ // a selector or keycap after text: invisible, or drawn around a digit
			continue
		default:
			b.WriteRune(r)
			i++
			continue
		}
		// The sequence: the pictograph, what modifies it, and what a
		// joiner joins to it.
		for i++; i < len(runes) && modifier(runes[i]); i++ {
			if runes[i] == zwj {
				i++
			}
		}
		next := ' '
		if i < len(runes) {
			next = runes[i]
		}
		out := b.String()
		trimmed := strings.TrimRightFunc(out, unicode.IsSpace)
		switch {
		case len(trimmed) < len(out) && (unicode.IsSpace(next) || unicode.IsPunct(next)):
			b.Reset()
			b.WriteString(trimmed)
		case len(trimmed) == len(out) && out != "" && (unicode.IsLetter(next) || unicode.IsDigit(next)):
			b.WriteByte(' ')
		}
	}
	return b.String()
}
