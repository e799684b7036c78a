package redact

import (
	"encoding/json"
	"slices"
	"strings"
	"testing"
)

func TestRedact(t *testing.T) {
	tests := []struct {
		in, want string
		kinds    []Kind
	}{
		{"my email is bob.smith+news@example.co.uk, remember it", "my email is [EMAIL_1], remember it", []Kind{Email}},
		{"call me on +49 30 1234567 please", "call me on [PHONE_1] please", []Kind{Phone}},
		{"my number is (555) 123-4567", "my number is [PHONE_1]", []Kind{Phone}},
		{"ring 07700 900123", "ring [PHONE_1]", []Kind{Phone}},
		{"my card is 4111 1111 1111 1111", "my card is [CARD_1]", []Kind{Card}},
		{"card 4111-1111-1111-1111 expires soon", "card [CARD_1] expires soon", []Kind{Card}},
		{"the IBAN is DE89 3704 0044 0532 0130 00", "the IBAN is [IBAN_1]", []Kind{IBAN}},
		{"send it to GB82WEST12345698765432", "send it to [IBAN_1]", []Kind{IBAN}},
		{"pay DE89 3704 0044 0532 0130 00 by friday please", "pay [IBAN_1] by friday please", []Kind{IBAN}},
		{"pay GB82 WEST 1234 5698 7654 32 and then call", "pay [IBAN_1] and then call", []Kind{IBAN}},
		{"my password is hunter2", "my password is [SECRET_1]", []Kind{Secret}},
		{"the wifi password is \"correct horse battery\"", "the wifi password is \"[SECRET_1]\"", []Kind{Secret}}, // the quotes stay
		{"my PIN is 4321", "my PIN is [SECRET_1]", []Kind{Secret}},
		{"use key sk-proj-abcdefghijklmnop1234567890", "use key [SECRET_1]", []Kind{Secret}},
		{"token ghp_0123456789abcdefghijABCDEFGHIJ012345", "token [SECRET_1]", []Kind{Secret}},
		{"aws AKIAIOSFODNN7EXAMPLE here", "aws [SECRET_1] here", []Kind{Secret}},
		{"my api key is 9f8e7d6c5b4a3f2e1d0c", "my [SECRET_1]", []Kind{Secret}},
		{"a@b.com and a@b.com again, c@d.org too", "[EMAIL_1] and [EMAIL_1] again, [EMAIL_2] too", []Kind{Email, Email, Email}},
	}
	for _, tt := range tests {
		got, kinds := New().Redact(tt.in)
		if got != tt.want || !slices.Equal(kinds, tt.kinds) {
			t.Errorf("Redact(%q) = %q %v, want %q %v", tt.in, got, kinds, tt.want, tt.kinds)
		}
	}
}

func TestRedactLeavesOrdinarySpeech(t *testing.T) {
	for _, s := range []string{
		"set a timer for 5 minutes", "what's 1500000 times 2", "what is 1,500 minus 250", "wake me at 7:30",
		"remind me on 2026-11-23 at 9", "the year 2024 was warm", "4111 1111 1111 1112 is not a card",
		"DE89 3704 0044 0532 0130 01 has a bad checksum", "convert 5.5 miles to kilometers", "my password manager is great",
		"the pin on the map", "what is 3.14159 times 2", "room 101", "call 911", "it costs 12.99",
		"supercalifragilisticexpialidocious", "what is the capital of France",
	} {
		if got, kinds := New().Redact(s); got != s {
			t.Errorf("Redact(%q) = %q %v, want it unchanged", s, got, kinds)
		}
	}
}

func TestRedactedValuesAreGone(t *testing.T) {
	secrets := []string{"bob@example.com", "+44 20 7946 0958", "4111111111111111", "hunter2", "GB82WEST12345698765432"}
	text := "email bob@example.com, phone +44 20 7946 0958, card 4111111111111111, my password is hunter2, iban GB82WEST12345698765432"
	got, _ := New().Redact(text)
	for _, s := range secrets {
		if strings.Contains(got, s) {
			t.Errorf("%q still holds %q", got, s)
		}
	}
}

func TestLuhnAndIBAN(t *testing.T) {
	for s, want := range map[string]bool{"4111111111111111": true, "4111111111111112": false, "5500 0000 0000 0004": true, "12345": false} {
		if luhn(s) != want {
			t.Errorf("luhn(%q) != %v", s, want)
		}
	}
	for s, want := range map[string]bool{"DE89370400440532013000": true, "DE89370400440532013001": false, "GB82 WEST 1234 5698 7654 32": true, "XX00": false} {
		if validIBAN(s) != want {
			t.Errorf("validIBAN(%q) != %v", s, want)
		}
	}
}

func FuzzRedactIsIdempotent(f *testing.F) {
	f.Add("my password is hunter2 and mail a@b.io, card 4111 1111 1111 1111")
	f.Add(`{"result": "{\"wifi_password\": \"sun. flower\", \"pin\": 4821}"} api_key=x&token: [SECRET_1]`)
	f.Add(`[{"name": "ssid", "value": "x"}, {"value": 4821, "meta": {"a": "}"}, 'key': "API Key"}, "{\"field\": \"pin\", \"value\": \"1\"}"]`)
	f.Add("remember that hunter2 is the wifi password, and 4711 est le code de la porte. Cookie: sid=ab12")
	f.Fuzz(func(t *testing.T, s string) {
		r := New()
		once, _ := r.Redact(s)
		twice, _ := r.Redact(once)
		if once != twice {
			t.Errorf("redacting twice changed %q to %q", once, twice)
		}
	})
}

func TestCodesAndPINs(t *testing.T) {
	tests := []struct {
		in, want string
	}{
		{"my locker code is 7351", "my locker code is [SECRET_1]"},
		{"the alarm code's 4 4 1 9", "the alarm code's [SECRET_1]"},
		{"front door code: 2580", "front door code: [SECRET_1]"},
		{"the safe combination is 12-34-56", "the safe combination is [SECRET_1]"},
		{"gate code is four two one nine", "gate code is [SECRET_1]"},
		{"the garage pin is 0451", "the garage pin is [SECRET_1]"},
		{"the code is 90210", "the code is [SECRET_1]"},
		{"my bike lock combo is 3141", "my bike lock combo is [SECRET_1]"},
		{"the CVV is 123", "the CVV is [SECRET_1]"},
		{"cvc 987", "cvc [SECRET_1]"},
		// Not secrets.
		{"set a timer for 10 minutes", "set a timer for 10 minutes"},
		{"what's the temperature, 21 degrees", "what's the temperature, 21 degrees"},
		{"my zip code is 90210", "my zip code is 90210"},
		{"the area code is 415", "the area code is 415"},
		{"error code 404 on the router", "error code 404 on the router"},
		{"wake me at 7 30", "wake me at 7 30"},
		{"the dress code is smart casual", "the dress code is smart casual"},
		{"pin the note to the fridge", "pin the note to the fridge"},
		{"the password is wrong", "the password is wrong"},
		{"your wifi password is a secret", "your wifi password is a secret"},
	}
	for _, tt := range tests {
		if got, _ := New().Redact(tt.in); got != tt.want {
			t.Errorf("Redact(%q) = %q, want %q", tt.in, got, tt.want)
		}
	}
}

// Two different secrets get two placeholders; the same one keeps its own;
// Restore gives local tools the values back, and Speakable says only the
// revealed ones, and never a placeholder's brackets.
func TestRestoreAndReveal(t *testing.T) {
	r := New()
	a, _ := r.Redact("my wifi password is Tr0ub4dor3x")
	b, _ := r.Redact("and the guest wifi password is correcthorse")
	c, _ := r.Redact("the first one again: password is Tr0ub4dor3x")
	if a != "my wifi password is [SECRET_1]" || b != "and the guest wifi password is [SECRET_2]" || c != "the first one again: password is [SECRET_1]" {
		t.Fatalf("placeholders %q %q %q", a, b, c)
	}
	args := r.RestoreArgs(map[string]any{"fact": "wifi password is [SECRET_1]", "n": 3})
	if args["fact"] != "wifi password is Tr0ub4dor3x" || args["n"] != 3 {
		t.Errorf("restored args %v", args)
	}
	if got := r.Restore("[SECRET_2] and [SECRET_9]"); got != "correcthorse and [SECRET_9]" {
		t.Errorf("Restore = %q: unknown placeholders stay", got)
	}
	said := "Your wifi password is [SECRET_1]; the guest one is [SECRET_2]."
	if got, want := r.Speakable(said, "a secret"), "Your wifi password is a secret; the guest one is a secret."; got != want {
		t.Errorf("Speakable before any reveal = %q, want %q", got, want)
	}
	r.Reveal("Tr0ub4dor3x")
	if got, want := r.Speakable(said, "a secret"), "Your wifi password is Tr0ub4dor3x; the guest one is a secret."; got != want {
		t.Errorf("Speakable after revealing one = %q, want %q", got, want)
	}
	// Another conversation's placeholder, and the word in German.
	if got, want := r.Speakable("Ich schicke es an [EMAIL_3].", "ein Geheimnis"), "Ich schicke es an ein Geheimnis."; got != want {
		t.Errorf("Speakable = %q, want %q", got, want)
	}
}

// A tool's result in JSON (an MCP server's, a router's, Home Assistant's)
// or in a config's lines holds credentials as keys and values: their
// values go, at whatever depth of JSON escaping, and what only describes
// a credential stays.
func TestCredentialsInKeyValues(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"ssid": "Garden", "password": "sunflower-tulip-42"}`, `{"ssid": "Garden", "password": "[SECRET_1]"}`},
		{`{"wifi_password": "sunflower-tulip-42"}`, `{"wifi_password": "[SECRET_1]"}`},
		{`{"wifiPassword":"sun flower"}`, `{"wifiPassword":"[SECRET_1]"}`},
		{`{"api_key": "k9w2-mz7q-r4t8-x1c5", "apikey": "k9w2", "APIKey": "r4t8", "x-api-key": "x1c5"}`,
			`{"api_key": "[SECRET_1]", "apikey": "[SECRET_2]", "APIKey": "[SECRET_3]", "x-api-key": "[SECRET_4]"}`},
		{`{"pin": "4821", "door": "front"}`, `{"pin": "[SECRET_1]", "door": "front"}`},
		{`{"pin": 4821, "pincode": "0000", "door_code": "2580"}`, `{"pin": [SECRET_1], "pincode": "[SECRET_2]", "door_code": "[SECRET_3]"}`},
		{`{"access_token":"abc","client_secret":"def","expires_in":3600}`, `{"access_token":"[SECRET_1]","client_secret":"[SECRET_2]","expires_in":3600}`},
		{`{"passphrase": "one. two"}`, `{"passphrase": "[SECRET_1]"}`}, // a full stop inside
		{`{"wifi_password_5ghz": "abc"}`, `{"wifi_password_5ghz": "[SECRET_1]"}`},
		{`{"pin": 0x1F, "door": "front"}`, `{"pin": [SECRET_1], "door": "front"}`}, // not a number: a word, hidden whole
		{`{"pin":00api.key=0}`, `{"pin":[SECRET_1]}`},
		{`{"password": "ab\"cd"}`, `{"password": "[SECRET_1]"}`},
		{`{'psk': 'sunflower', 'ssid': 'Garden'}`, `{'psk': '[SECRET_1]', 'ssid': 'Garden'}`},
		{"WIFI_PASSWORD=sunflower ssid=Garden", "WIFI_PASSWORD=[SECRET_1] ssid=Garden"},
		{"ssid=Garden\napi_key=k9w2mz7q\nwpa_passphrase=sunflower\n", "ssid=Garden\napi_key=[SECRET_1]\nwpa_passphrase=[SECRET_2]\n"},
		{"GET /status?api_key=k9w2mz7q&q=1", "GET /status?api_key=[SECRET_1]&q=1"},
		{`guest_password: "sun flower"`, `guest_password: "[SECRET_1]"`},
		// Not credentials, or nothing to hide.
		{`{"token_type": "Bearer", "password_hint": "flower", "pin_state": "on"}`, ""},
		{`{"shipping": "fast", "spinner": "2", "key": "living_room", "code": "404"}`, ""},
		{`{"pin": null, "password": "", "secret": true, "token": {"id": 1}}`, ""},
		{`{"password": "[SECRET_1]"}`, ""},
		{"guest_password: not set", ""},
		{"wake me at 7:30", ""},
		{"the password: wrong again", ""},
	}
	redactsInJSONStrings(t, tests)
}

// A value in escaped JSON comes back as it was for a local tool.
func TestKeyValueRestored(t *testing.T) {
	r := New()
	in, _ := json.Marshal(map[string]string{"result": `{"password": "ab\"c. d\\e"}`})
	got, _ := r.Redact(string(in))
	if want := `{"result":"{\"password\": \"[SECRET_1]\"}"}`; got != want {
		t.Fatalf("Redact(%s) = %s, want %s", in, got, want)
	}
	if got := r.Restore("[SECRET_1]"); got != `ab"c. d\e` {
		t.Errorf("Restore = %q, want the value unescaped", got)
	}
}

// A credential can be named by a member's value rather than its key: a
// settings list or a form ({"name": "password", "value": "…"}). The
// sibling "value" of a "name", "key" or "field" that names a credential
// goes, in either order and at any depth of escaping; a name that names
// nothing secret, or a "value" of another object, stays.
func TestCredentialsNamedByAMember(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"name":"password","value":"hunter2"}`, `{"name":"password","value":"[SECRET_1]"}`},
		{`{"value": "hunter2", "name": "wifi_password"}`, `{"value": "[SECRET_1]", "name": "wifi_password"}`},
		{`{"key": "API Key", "value": "k9w2-mz7q"}`, `{"key": "API Key", "value": "[SECRET_1]"}`},
		{`{"field": "pin", "value": 4821}`, `{"field": "pin", "value": [SECRET_1]}`},
		{`{"Name": "Wi-Fi password", "Value": "sun. flower"}`, `{"Name": "Wi-Fi password", "Value": "[SECRET_1]"}`},
		{`[{"name": "ssid", "value": "Garden"}, {"name": "Front door code", "value": "2580"}]`,
			`[{"name": "ssid", "value": "Garden"}, {"name": "Front door code", "value": "[SECRET_1]"}]`},
		{`{'name': 'passphrase', 'value': 'sunflower'}`, `{'name': 'passphrase', 'value': '[SECRET_1]'}`},
		{`{"name": "Guest's password", "value": "sunflower"}`, `{"name": "Guest's password", "value": "[SECRET_1]"}`},
		{"{\n  \"name\": \"password\",\n  \"value\": \"hunter2\"\n}", "{\n  \"name\": \"password\",\n  \"value\": \"[SECRET_1]\"\n}"},
		// Members between, with braces and quotes in their strings.
		{`{"name": "token", "meta": {"value": "x", "note": "a } and a \" and {"}, "value": "abc"}`,
			`{"name": "token", "meta": {"value": "x", "note": "a } and a \" and {"}, "value": "[SECRET_1]"}`},
		{`{"value": "abc", "meta": ["{", {"name": "x"}], "name": "secret"}`, `{"value": "[SECRET_1]", "meta": ["{", {"name": "x"}], "name": "secret"}`},
		// Not credentials, or not siblings.
		{`{"name":"kitchen lamp","value":"on"}`, ""},
		{`{"name": "password_hint", "value": "flower"}`, ""},
		{`{"name": "password", "state": "set"}`, ""},
		{`[{"name": "password"}, {"value": "on"}]`, ""},
		{`{"name": "password", "child": {"value": "on"}}`, ""},
		{`{"value": "on", "child": {"name": "password"}}`, ""},
		{`{"name": "password", "value": null}`, ""},
		{`{"name": 4821, "note": "password", "value": "on"}`, ""},
		{`{"name": "{password}", "value": "on"}`, ""},
		{`{"name": "password", "value": "[SECRET_1]"}`, ""},
		{`the "name": "password", "value": "on" said`, ""},
	}
	redactsInJSONStrings(t, tests)
}

// A form's field, a password manager's item or a settings entry gives a
// credential's kind by a "label" written for people or by a "type", and
// its value maybe as "val". A label names one as a "name" does; a type is
// a schema's word, and most say nothing secret ("light", "text", "pass"):
// only a credential's name in the singular does, or a type that says the
// value is concealed. A "content" is a document's or a message's body,
// not a field's value: it stays.
func TestCredentialsNamedByTypeOrLabel(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"type":"password","value":"hunter2"}`, `{"type":"password","value":"[SECRET_1]"}`},
		{`{"value": "hunter2", "type": "Password", "id": 3}`, `{"value": "[SECRET_1]", "type": "Password", "id": 3}`},
		{`{"label":"Wi-Fi password","value":"x"}`, `{"label":"Wi-Fi password","value":"[SECRET_1]"}`},
		{`{"type": "text", "label": "Alarm PIN", "value": 4821}`, `{"type": "text", "label": "Alarm PIN", "value": [SECRET_1]}`},
		{`{"type": "pinCode", "value": ["4821"]}`, `{"type": "pinCode", "value": ["[SECRET_1]"]}`}, // Keeper
		{`{"type": "apiKey", "val": "k9w2-mz7q"}`, `{"type": "apiKey", "val": "[SECRET_1]"}`},
		{`{"name": "passcode", "val": "2580"}`, `{"name": "passcode", "val": "[SECRET_1]"}`},
		{`{"key": "GARAGE", "value": "abc", "type": "secret", "enabled": true}`, `{"key": "GARAGE", "value": "[SECRET_1]", "type": "secret", "enabled": true}`}, // Postman
		{`{"type": "token", "value": "abc"}, {"type": "passphrase", "value": "a b"}`, `{"type": "token", "value": "[SECRET_1]"}, {"type": "passphrase", "value": "[SECRET_2]"}`},
		{`{"id": "x1", "type": "CONCEALED", "label": "Alarm", "value": "4821"}`, `{"id": "x1", "type": "CONCEALED", "label": "Alarm", "value": "[SECRET_1]"}`}, // 1Password
		{`{"Name": "/home/router", "Type": "SecureString", "Value": "sunflower"}`, `{"Name": "/home/router", "Type": "SecureString", "Value": "[SECRET_1]"}`},  // AWS SSM
		// Innocent types, labels and members.
		{`{"type":"light","value":"on"}`, ""},
		{`{"type": "pass", "value": "annual"}, {"type": "key", "value": "a"}, {"type": "code", "value": "x = 1"}`, ""},
		{`{"type": "public-key", "value": "MFkwEwYH"}, {"type": "hidden", "value": "7"}, {"type": "number", "value": 21}`, ""},
		{`{"type": "tokens", "value": "abc"}, {"type": "password_reset", "value": "sent"}`, ""},
		{`{"type": "text", "label": "Username", "value": "bob"}, {"label": "Password hint", "value": "flower"}`, ""},
		{`{"type": "password", "content": "Choose a strong one"}, {"label": "token", "text": "if"}`, ""},
		{`{"type": "password", "child": {"value": "on"}}`, ""},
	}
	redactsInJSONStrings(t, tests)
}

// A key that names credentials in the plural holds a list of them, or
// one of them, or a config's list separated by commas: each string goes,
// as each would under its singular key. A number under such a key, or a
// string that is one, is a count or an id and stays ("tokens": 42,
// MAX_TOKENS=512), but for codes, whose numbers are the codes; under a
// singular key, a number in a list goes as the number alone would. A
// device's pins stay.
func TestCredentialLists(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"passwords": ["hunter2", "sunflower"]}`, `{"passwords": ["[SECRET_1]", "[SECRET_2]"]}`},
		{`{"api_keys": ["k9w2", "r4t8"], "tokens": ["abc"], "secrets": ["def"]}`,
			`{"api_keys": ["[SECRET_1]", "[SECRET_2]"], "tokens": ["[SECRET_3]"], "secrets": ["[SECRET_4]"]}`},
		{`{"apiKeys":["k9w2"],"access_tokens":[ "abc" , "abc" ],"door_codes":["2580"]}`,
			`{"apiKeys":["[SECRET_1]"],"access_tokens":[ "[SECRET_2]" , "[SECRET_2]" ],"door_codes":["[SECRET_3]"]}`},
		{"{\n  \"passwords\": [\n    \"hunter2\",\n    \"sun. flower\"\n  ]\n}", "{\n  \"passwords\": [\n    \"[SECRET_1]\",\n    \"[SECRET_2]\"\n  ]\n}"},
		{`{'tokens': ['abc', 'def']}`, `{'tokens': ['[SECRET_1]', '[SECRET_2]']}`},
		{`{"secrets": ["abc", null, 7, "def"]}`, `{"secrets": ["[SECRET_1]", null, 7, "[SECRET_2]"]}`},
		{`{"password": ["hunter2"]}`, `{"password": ["[SECRET_1]"]}`},
		{`{"name": "tokens", "value": ["abc", "def"]}`, `{"name": "tokens", "value": ["[SECRET_1]", "[SECRET_2]"]}`},
		{`{"passwords": "hunter2", "api_keys": "k9w2,r4t8"}`, `{"passwords": "[SECRET_1]", "api_keys": "[SECRET_2]"}`},
		{`{"door_codes": [2580, "1234"], "pin": [4821], "passcodes": 1379}`, `{"door_codes": [[SECRET_1], "[SECRET_2]"], "pin": [[SECRET_3]], "passcodes": [SECRET_4]}`},
		{`{"name": "tokens", "value": "abc"}, {"label": "door codes", "value": 2580}`, `{"name": "tokens", "value": "[SECRET_1]"}, {"label": "door codes", "value": [SECRET_2]}`},
		{"API_KEYS=k9w2,r4t8\nWIFI_PASSWORDS=sunflower DOOR_CODES=2580,1234", "API_KEYS=[SECRET_1],[SECRET_2]\nWIFI_PASSWORDS=[SECRET_3] DOOR_CODES=[SECRET_4],[SECRET_5]"},
		{"GET /status?api_keys=k9w2,r4t8&q=1", "GET /status?api_keys=[SECRET_1],[SECRET_2]&q=1"},
		{"ACCESS_TOKENS=12,abc", "ACCESS_TOKENS=12,[SECRET_1]"},
		// Not credentials, or nothing to hide.
		{`{"tokens_used": 42, "tokens": 42, "max_tokens": 512}`, ""},
		{`{"tokens": [101, 2023, 102]}`, ""},
		{`{"pins": ["GPIO17", "GPIO27"], "keys": ["living_room"], "codes": ["404"]}`, ""},
		{`{"passwords": [], "secrets": [{"id": "x"}], "tokens": ["[SECRET_1]"]}`, ""},
		{`{"name": "kitchen lamps", "value": ["on", "off"]}`, ""},
		{`{"max_tokens": "512", "tokens": ["101", 2023], "secrets": "3"}`, ""},
		{`{"name": "tokens", "value": 42}, {"label": "Passwords", "value": "7"}`, ""},
		{"MAX_TOKENS=512\nPROMPT_TOKENS=1.5e3,20\nGPIO_PINS=17,27\nMQTT_KEYS=ha,z2m\nAPI_KEYS=not set", ""},
	}
	redactsInJSONStrings(t, tests)
}

// TestQuotedPasswordInAJSONString: "my password is "abc def"" said in a
// note a tool returns, inside a JSON string once or twice, hides the
// whole quoted password, leaves valid JSON, and comes back as it was.
func TestQuotedPasswordInAJSONString(t *testing.T) {
	for _, said := range []string{`my password is "abc def"`, `the wifi key is "sun flower 42"`, `my pin is '4 8 2 1'`} {
		s := said
		for level := range 3 {
			r := New()
			got, _ := r.Redact(s)
			for _, word := range []string{"abc", "def", "sun", "flower", "4 8"} {
				if strings.Contains(got, word) {
					t.Errorf("level %d: Redact(%s) = %s: %q is left", level, s, got, word)
				}
			}
			if level > 0 && !json.Valid([]byte(got)) {
				t.Errorf("level %d: Redact(%s) = %s, not JSON", level, s, got)
			}
			if back := r.Restore(got); back != s {
				t.Errorf("level %d: Restore(%s) = %s, want %s", level, got, back, s)
			}
			b, _ := json.Marshal(s)
			s = string(b)
		}
	}
}

// redactsInJSONStrings checks that Redact turns each in into its want (""
// for in unchanged), and does the same inside a JSON string, once and
// twice, as the reply engine hands a tool's text to the model.
func redactsInJSONStrings(t *testing.T, tests []struct{ in, want string }) {
	t.Helper()
	for _, tt := range tests {
		want := tt.want
		if want == "" {
			want = tt.in
		}
		for range 3 {
			if got, _ := New().Redact(tt.in); got != want {
				t.Errorf("Redact(%s)\n got %s\nwant %s", tt.in, got, want)
			}
			in, _ := json.Marshal(tt.in)
			out, _ := json.Marshal(want)
			tt.in, want = string(in), string(out)
		}
	}
}

// A tokenizer's or a model's config names its special tokens with keys
// that end in "token" ("eos_token": "</s>", "sep_token": "[SEP]"): their
// values are entries of a vocabulary, written in angle or square
// brackets, which no generated credential is. They stay; a value of any
// other shape under a token's key goes, as do the special tokens' shapes
// under keys that name other credentials.
func TestSpecialTokensOfATokenizerStay(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"access_token": "abc", "refresh_token": "def", "id_token": "eyJhbGciOi", "token": "tk1", "auth_token": "zz", "github_token": "ghp_x"}`,
			`{"access_token": "[SECRET_1]", "refresh_token": "[SECRET_2]", "id_token": "[SECRET_3]", "token": "[SECRET_4]", "auth_token": "[SECRET_5]", "github_token": "[SECRET_6]"}`},
		{`{"eos_token": "</s>", "hf_token": "hf_abcdefgh"}`, `{"eos_token": "</s>", "hf_token": "[SECRET_1]"}`},
		{`{"access_token": "<s>abc", "token": "a<b>", "pad_token": "<pad><pad>", "password": "<s>"}`,
			`{"access_token": "[SECRET_1]", "token": "[SECRET_2]", "pad_token": "[SECRET_3]", "password": "[SECRET_4]"}`},
		{`{"tokens": ["<s>", "abc"], "eos_token": "<unk> x"}`, `{"tokens": ["<s>", "[SECRET_1]"], "eos_token": "[SECRET_2]"}`},
		{`{"access_token": "[0000000000000000]"}`, `{"access_token": "[[CARD_1]]"}`}, // a card in a special token's brackets
		{`{"name": "refresh_token", "value": "<s>"}, {"name": "api_key", "value": "[CLS]"}`,
			`{"name": "refresh_token", "value": "<s>"}, {"name": "api_key", "value": "[SECRET_1]"}`},
		{"HF_TOKEN=hf_abcdefgh\nAuthorization: Bearer abcdefghijklmnopqrstuv", "HF_TOKEN=[SECRET_1]\nAuthorization: [SECRET_2]"},
		// A tokenizer's config.
		{`{"eos_token": "</s>", "bos_token": "<s>", "pad_token": null, "max_tokens": 512, "token_type": "bpe"}`, ""},
		{`{"unk_token": "<unk>", "sep_token": "[SEP]", "cls_token": "[CLS]", "mask_token": "<mask>", "pad_token": "<pad>"}`, ""},
		{`{"eos_token": "<|im_end|>", "additional_special_tokens": ["<|im_start|>", "<|im_end|>"], "eos_token_id": 2}`, ""},
		{`{"bos_token": "<｜begin▁of▁sentence｜>", "image_token": "<start_of_image>", "eot_token": "<|reserved_special_token_0|>"}`, ""},
		{`{'pad_token': '<pad>'}` + "\nEOS_TOKEN=</s>", ""},
		{`{"access_token": "[[CARD_1]]", "eos_token": "<[EMAIL_1]>"}`, ""}, // as the first redaction left them
		{`{"name": "eos_token", "value": "</s>"}, {"label": "Special tokens", "value": ["<s>", "</s>"]}`, ""},
	}
	redactsInJSONStrings(t, tests)
}

// Recovery and backup codes and recovery keys sign in as a password
// does: under a key that names them, and said in a sentence, they go,
// each of a list on its own, also one on each line under a heading. What
// follows such a name in a sentence is taken for one only when it is
// shaped like one: groups of letters and digits with a digit in them, or
// groups of letters of one length joined by dashes.
func TestRecoveryCodes(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"recovery_codes": ["abcd-efgh", "ijkl-mnop"]}`, `{"recovery_codes": ["[SECRET_1]", "[SECRET_2]"]}`},
		{`{"backup_codes": [12345678, 87654321], "recoveryKey": "7H3K-QX2M"}`, `{"backup_codes": [[SECRET_1], [SECRET_2]], "recoveryKey": "[SECRET_3]"}`},
		{`{"name": "Backup codes", "value": ["1234 5678"]}`, `{"name": "Backup codes", "value": ["[SECRET_1]"]}`},
		{"RECOVERY_CODES=abcd-efgh,ijkl-mnop", "RECOVERY_CODES=[SECRET_1],[SECRET_2]"},
		{"backup code: 1234 5678", "backup code: [SECRET_1]"},
		{"Your backup codes are 1234 5678, 2345 6789 and 3456 7890.", "Your backup codes are [SECRET_1], [SECRET_2] and [SECRET_3]."},
		{"Your recovery key is 7H3K-QX2M-9PLD-WV4R-TB8N-YC6J-ZF5S", "Your recovery key is [SECRET_1]"},
		{"Your recovery key is ABCD-EFGH-IJKL-MNOP. Keep it safe.", "Your recovery key is [SECRET_1]. Keep it safe."},
		{"Recovery code abcde-12345 used", "Recovery code [SECRET_1] used"},
		{`the BitLocker recovery key: "123456-234567-345678-456789"`, `the BitLocker recovery key: "[SECRET_1]"`},
		{"GitHub recovery codes:\nabcde-12345\nfghij-67890\n\nKeep them safe.", "GitHub recovery codes:\n[SECRET_1]\n[SECRET_2]\n\nKeep them safe."},
		{"BACKUP CODES\n  1234 5678\n  2345 6789\nCall me on 0151 2345 678 tomorrow.", "BACKUP CODES\n  [SECRET_1]\n  [SECRET_2]\nCall me on [PHONE_1] tomorrow."},
		// Talk about them.
		{"the backup key is in the drawer", ""},
		{"I lost my recovery codes. Backup codes: 10 left", ""},
		{"Backup codes are one-time codes, recovery key is set", ""},
		{"Recovery codes were generated on 2024-05-01, use a recovery code instead", ""},
		{"the backup is at 12:30 and the keyboard backup key-value store", ""},
	}
	redactsInJSONStrings(t, tests)
}

// An HTTP client's collection (Postman's, Insomnia's, a HAR file's) lists
// its headers as named values: the value of an Authorization header, or
// of one that names a key, a token or a secret, goes, as it does under a
// header's own key and on a header's line, with its scheme ("Bearer …").
func TestCredentialsInHeaders(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"key":"Authorization","value":"Bearer abcdefgh"}`, `{"key":"Authorization","value":"[SECRET_1]"}`},
		{`{"name": "authorization", "value": "Basic dXNlcjpwYXNz"}`, `{"name": "authorization", "value": "[SECRET_1]"}`},
		{`{"key": "Proxy-Authorization", "value": "Basic dXNlcjpwYXNz", "type": "text"}`, `{"key": "Proxy-Authorization", "value": "[SECRET_1]", "type": "text"}`},
		{`[{"key": "x-api-key", "value": "sk-abc"}, {"key": "X-Auth-Token", "value": "abc"}, {"name": "X-Client-Secret", "value": "def"}]`,
			`[{"key": "x-api-key", "value": "[SECRET_1]"}, {"key": "X-Auth-Token", "value": "[SECRET_2]"}, {"name": "X-Client-Secret", "value": "[SECRET_3]"}]`},
		{`{"key": "Ocp-Apim-Subscription-Key", "value": "k9w2mz7q"}`, `{"key": "Ocp-Apim-Subscription-Key", "value": "[SECRET_1]"}`},
		{`{"headers": {"Authorization": "Bearer abc", "Content-Type": "application/json"}, "authorization_code": "x1"}`,
			`{"headers": {"Authorization": "[SECRET_1]", "Content-Type": "application/json"}, "authorization_code": "[SECRET_2]"}`},
		{`{"auth": {"type": "bearer", "bearer": [{"key": "token", "value": "abc", "type": "string"}]}}`,
			`{"auth": {"type": "bearer", "bearer": [{"key": "token", "value": "[SECRET_1]", "type": "string"}]}}`},
		{"GET /v1 HTTP/1.1\r\nAuthorization: Basic dXNlcjpwYXNz\r\nAccept: */*", "GET /v1 HTTP/1.1\r\nAuthorization: [SECRET_1]\r\nAccept: */*"},
		{`curl -H "Authorization: Bearer abc123" -H 'X-Api-Key: k9w2' https://x`, `curl -H "Authorization: [SECRET_1]" -H 'X-Api-Key: [SECRET_2]' https://x`},
		{"authorization=k9w2mz7q&q=1", "authorization=[SECRET_1]&q=1"},
		// Headers that say nothing secret.
		{`[{"key": "Content-Type", "value": "application/json"}, {"key": "Accept", "value": "*/*"}, {"name": "X-Request-Id", "value": "42"}]`, ""},
		{`{"key": "Authorization", "value": "", "disabled": true}, {"authorization": null}`, ""},
		{"Authorization: not set", ""},
	}
	redactsInJSONStrings(t, tests)
}

// A header's line hides its credentials: a scheme and what follows it,
// or a value shaped like a token. The same name in prose ("Authorization:
// pending") is followed by a plain word, which stays, as does a scheme
// said alone.
func TestAuthorizationHeaderKeepsPlainWords(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Authorization: Bearer abc123", "Authorization: [SECRET_1]"},
		{"Authorization: Basic dXNlcjpwYXNz", "Authorization: [SECRET_1]"},
		{"Authorization: Token 9944b09199c62bcf9418ad846dd0e4bb", "Authorization: [SECRET_1]"},
		{"Authorization: k9w2mz7q\nAccept: */*", "Authorization: [SECRET_1]\nAccept: */*"},
		{"Proxy-Authorization: dXNlcjpwYXNz", "Proxy-Authorization: [SECRET_1]"},
		{"authorization=k9w2mz7q&q=1", "authorization=[SECRET_1]&q=1"},
		// Prose, and a scheme without credentials.
		{"Authorization: pending", ""},
		{"Authorization: required", ""},
		{"Status: failed. Authorization: Required. Try again.", ""},
		{"authorization: NONE, retry: yes", ""},
		{"Authorization: Bearer", ""},
		{"Authorization: Basic auth is enabled", ""},
		{"Authorization: pre-approved by the landlord", ""},
	}
	redactsInJSONStrings(t, tests)
}

// Cookies sign in as a password does: a Cookie or Set-Cookie header, on
// its line, as a header's key or named in a HAR file's list, hides the
// values of its cookies that look like secrets (a plain setting such as
// theme="dark" stays) and keeps their names and a Set-Cookie's
// attributes. A session's id goes under a key or a cookie's name that
// names one ("session_id", "connect.sid", "PHPSESSID") when it is shaped
// like a token; a session that is a word or a count stays, as does a
// Wi-Fi network's SSID.
func TestCookiesAndSessionIDs(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Cookie: sessionid=abc123; csrftoken=Xy9kLm2Pq8", "Cookie: sessionid=[SECRET_1]; csrftoken=[SECRET_2]"},
		{"Set-Cookie: session=eyJ1c2VyIjoxfQ; Path=/; HttpOnly; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Max-Age=3600",
			"Set-Cookie: session=[SECRET_1]; Path=/; HttpOnly; Expires=Wed, 21 Oct 2026 07:28:00 GMT; Max-Age=3600"},
		{"GET / HTTP/1.1\r\ncookie: PHPSESSID=9u1fq3e8k0; theme=\"dark\"\r\nAccept: */*", "GET / HTTP/1.1\r\ncookie: PHPSESSID=[SECRET_1]; theme=\"dark\"\r\nAccept: */*"},
		{`curl -H 'Cookie: sid=x9y8z7w6' https://x`, `curl -H 'Cookie: sid=[SECRET_1]' https://x`},
		{`{"headers": {"Cookie": "sessionid=abc123; csrftoken=Xy9kLm2Pq8", "Accept": "*/*"}}`,
			`{"headers": {"Cookie": "sessionid=[SECRET_1]; csrftoken=[SECRET_2]", "Accept": "*/*"}}`},
		{`{"name": "Set-Cookie", "value": "connect.sid=s%3AjK8x2.Lq9; Path=/; HttpOnly"}`,
			`{"name": "Set-Cookie", "value": "connect.sid=[SECRET_1]; Path=/; HttpOnly"}`},
		{`"cookies": [{"name": "sessionid", "value": "abc123def456", "path": "/", "httpOnly": true}, {"name": "connect.sid", "value": "s%3AjK8x2.Lq9"}]`,
			`"cookies": [{"name": "sessionid", "value": "[SECRET_1]", "path": "/", "httpOnly": true}, {"name": "connect.sid", "value": "[SECRET_2]"}]`},
		{`{"session_id": "8f14e45fceea167a5a36dedd4bea2543", "sessionToken": "abc", "sid": "x9y8z7w6v5u4"}`,
			`{"session_id": "[SECRET_1]", "sessionToken": "[SECRET_2]", "sid": "[SECRET_3]"}`},
		{`{"sessionId": "c0ffee-1234", "ASP.NET_SessionId": "b2c3d4e5f6", "session": "dXNlcjpwYXNz"}`,
			`{"sessionId": "[SECRET_1]", "ASP.NET_SessionId": "[SECRET_2]", "session": "[SECRET_3]"}`},
		{"https://shop.example/cart?sid=x9y8z7w6v5&page=2\nJSESSIONID=1A2B3C4D5E6F session_key=k2j3h4g5", "https://shop.example/cart?sid=[SECRET_1]&page=2\nJSESSIONID=[SECRET_2] session_key=[SECRET_3]"},
		// Sessions that are no secret, and cookies without values.
		{`{"session": "evening", "session_id": 42, "sid": "kitchen", "ssid": "Garden5G", "session_count": 3}`, ""},
		{`{"name": "session", "value": "morning"}, {"name": "Cookie", "value": "none"}`, ""},
		{"Cookie: chocolate chip, please. Session: Week12, sid: 7", ""},
		{"Set-Cookie: theme=; Path=/; Secure", ""},
		{`{"Cookie": 12=34, "set-cookie": 0}`, ""}, // a number, or a word, under a header's key: no cookies
	}
	redactsInJSONStrings(t, tests)
}

// Docker's config.json keeps a registry's user and password as "auth":
// the two in base64, "user:pass". It goes; an "auth" that is a word, a
// flag or base64 of anything else stays.
func TestDockerRegistryAuth(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"auths": {"https://index.docker.io/v1/": {"auth": "dXNlcjpwYXNzd29yZA=="}}}`,
			`{"auths": {"https://index.docker.io/v1/": {"auth": "[SECRET_1]"}}}`},
		{`{"auths": {"ghcr.io": {"auth": "Ym9iOmdocF9hYmM="}, "registry.local:5000": {"auth": "cm9ib3QkY2k6YT9+Pj94", "email": "a@b.io"}}, "credsStore": "desktop"}`,
			`{"auths": {"ghcr.io": {"auth": "[SECRET_1]"}, "registry.local:5000": {"auth": "[SECRET_2]", "email": "[EMAIL_1]"}}, "credsStore": "desktop"}`},
		{"{\n\t\"auths\": {\n\t\t\"quay.io\": {\n\t\t\t\"auth\": \"YWRtaW46czNjcjN0\"\n\t\t}\n\t}\n}", "{\n\t\"auths\": {\n\t\t\"quay.io\": {\n\t\t\t\"auth\": \"[SECRET_1]\"\n\t\t}\n\t}\n}"},
		{`{'registry_auth': 'Ym9iOg=='}`, `{'registry_auth': '[SECRET_1]'}`},
		// Not a user and a password.
		{`{"auth": "none"}, {"auth": "oauth"}, {"auth": true}, {"auth": "basic", "type": "x"}, {"auth": null}`, ""},
		{`{"auth": "dGVzdA=="}, {"auth": "abcd"}, {"auth": 1234}, {"auth": {"type": "bearer"}}`, ""},
	}
	redactsInJSONStrings(t, tests)
}

// Postman's collection keeps a request's auth as a block of named values
// under its type: the secret is named only by the generic "value" or
// "token" inside an "apikey", "bearer" or "basic" block. It goes, and the
// block's other values (the header's name, where it goes) stay, as the
// same names elsewhere do.
func TestPostmanAuthBlocks(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"auth": {"type": "apikey", "apikey": [{"key": "value", "value": "abc123def", "type": "string"}, {"key": "key", "value": "X-API-Key", "type": "string"}, {"key": "in", "value": "header"}]}}`,
			`{"auth": {"type": "apikey", "apikey": [{"key": "value", "value": "[SECRET_1]", "type": "string"}, {"key": "key", "value": "X-API-Key", "type": "string"}, {"key": "in", "value": "header"}]}}`},
		{`"apikey":[{"key":"key","value":"X-Custom-Header","type":"string"},{"key":"in","value":"query"},{"value":"k9w2mz7q","key":"value"}]`,
			`"apikey":[{"key":"key","value":"X-Custom-Header","type":"string"},{"key":"in","value":"query"},{"value":"[SECRET_1]","key":"value"}]`},
		{"\"apikey\": [\n  {\n    \"key\": \"value\",\n    \"value\": \"abc123def\"\n  }\n]", "\"apikey\": [\n  {\n    \"key\": \"value\",\n    \"value\": \"[SECRET_1]\"\n  }\n]"},
		{`"bearer":[{"key":"token","value":"abc123"}], "Bearer": [{"key": "value", "value": "def"}]`, `"bearer":[{"key":"token","value":"[SECRET_1]"}], "Bearer": [{"key": "value", "value": "[SECRET_2]"}]`},
		{`'basic': [{'key': 'password', 'value': 'pw'}, {'key': 'username', 'value': 'bob'}, {'key': 'value', 'value': 'x1'}]`,
			`'basic': [{'key': 'password', 'value': '[SECRET_1]'}, {'key': 'username', 'value': 'bob'}, {'key': 'value', 'value': '[SECRET_2]'}]`},
		// A "value" named "value" outside an auth block.
		{`{"variable": [{"key": "value", "value": "42"}, {"key": "token_url", "value": "https://x"}]}, {"key": "value", "value": "on"}`, ""},
		{`"apikey": [{"key": "in", "value": "header"}, {"key": "key", "value": "X-API-Key"}], "noauth": [{"key": "value", "value": "x"}]`, ""},
		{`"bearer": {"list": [{"key": "value", "value": "x"}]}`, ""},
	}
	redactsInJSONStrings(t, tests)
}

// A Cookie header hides the values that look like secrets (shaped like a
// token, long, or under a name that says session, id, auth, token and the
// like) and keeps the plain words of a site's settings.
func TestCookiesKeepPlainSettings(t *testing.T) {
	tests := []struct{ in, want string }{
		{"Cookie: lang=en; theme=dark; sessionid=abc123", "Cookie: lang=en; theme=dark; sessionid=[SECRET_1]"},
		{`{"Cookie": "theme=dark; consent=yes; auth=hello; csrftoken=abcdefgh"}`, `{"Cookie": "theme=dark; consent=yes; auth=[SECRET_1]; csrftoken=[SECRET_2]"}`},
		{"Set-Cookie: prefs=dXNlcjpwYXNzd29yZA; Path=/", "Set-Cookie: prefs=[SECRET_1]; Path=/"},
		{"Cookie: tracking=abcdefghijklmnopqrstuvwxyz", "Cookie: tracking=[SECRET_1]"},
		{"Cookie: lang=en-GB; count=3; theme=\"dark\"", ""},
	}
	redactsInJSONStrings(t, tests)
}

// An Authorization header in JSON keeps a plain word as the header on
// its line does, and hides credentials.
func TestAuthorizationInJSONKeepsPlainWords(t *testing.T) {
	tests := []struct{ in, want string }{
		{`{"Authorization": "pending", "Proxy-Authorization": "NONE"}`, ""},
		{`{"Authorization": "Bearer abcdefgh"}`, `{"Authorization": "[SECRET_1]"}`},
		{`{"authorization": "x9y8z7w6"}`, `{"authorization": "[SECRET_1]"}`},
	}
	redactsInJSONStrings(t, tests)
}

// In JSON that escapes < and > (\u003c, as Go's encoder does), an
// address in angle brackets is the address alone.
func TestEmailAfterAnEscape(t *testing.T) {
	r := New()
	for _, c := range []struct{ in, want string }{
		{`{"from": "Bob \u003cbob@example.com\u003e"}`, `{"from": "Bob \u003c[EMAIL_1]\u003e"}`},
		{`"to":"\u003calice@example.org\u003e, \u003cbob@example.com\u003e"`, `"to":"\u003c[EMAIL_2]\u003e, \u003c[EMAIL_1]\u003e"`},
		{`"note": "line one\nmail carol@example.net"`, `"note": "line one\nmail [EMAIL_3]"`},
	} {
		got, _ := r.Redact(c.in)
		if got != c.want {
			t.Errorf("Redact(%s) = %s, want %s", c.in, got, c.want)
		}
		if !strings.Contains(r.Restore(got), "@") || r.Restore(got) != c.in {
			t.Errorf("Restore gives %s, want %s", r.Restore(got), c.in)
		}
	}
}
