package locale

// es is the catalogue of Hark's fixed sentences in this language, by English key.
var es = map[string]string{}
