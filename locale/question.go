package locale

import "strings"

// FrameWord reports whether w is a word any question or request in l may
// be built of, whatever it is about: the question words, the verbs that
// ask or link ("is", "was", "does"), pronouns, articles, prepositions and
// the like ("tell me", "right now"). What a question says besides them
// names what it is about: "where was Napoleon born" names Napoleon, "is
// the garage door open" a door of the house. w is compared lowercased.
func (l Lang) FrameWord(w string) bool {
	return frameWords[l][strings.ToLower(w)]
}

var frameWords = map[Lang]map[string]bool{
	English: set(`what what's whats which who who's whos whom whose where where's wheres when when's why how how's hows
		many much is isn't are aren't was wasn't were weren't be been being am do does did doesn't don't didn't has have had
		got get will would can could should shall may might must i i'm me my mine we us our you your it it's its he him his
		she her they them their there there's here a an the this that these those some any every each all no not of in on
		at to for from by with about into onto over under across around throughout near and or but if so than tell know say
		please right now currently presently moment today anyone anything anybody someone something everyone everything`),
	German: set(`was wer wen wem wessen wo woher wohin wann warum wieso weshalb wie welche welcher welches welchen welchem
		wieviel wieviele viel viele ist sind war waren wird werden wurde wurden hat haben hatte hatten gibt gab kann können
		soll bin bist sein es er sie ihr ich mir mich du dir dich wir uns man der die das den dem des ein eine einen einem
		einer eines kein keine keinen nicht von vom zu zum zur im in an am auf für mit bei beim nach über unter um und oder
		aber wenn ob dass gerade jetzt momentan aktuell sag sage bitte noch hier da dort jemand etwas irgendwas irgendetwas
		irgendjemand alle alles`),
	French: set(`qui que quoi qu'est quel quelle quels quelles où quand comment combien pourquoi lequel laquelle est sont
		était étaient a ont avait fut sera y il elle ils elles on je moi me tu te toi nous vous ce c'est ça cela t t'il til
		at at'il atil est-ce estce estil estelle estils estelles sontil sontelle sontils sontelles le la les l un une des de
		du d au aux à dans sur pour en par avec sans et ou mais si dis dites donne donnes actuellement maintenant ici là
		quelqu'un quelque chose fait va`),
	Spanish: set(`qué que quién quiénes quien dónde donde adónde cuándo cuando cómo como cuál cual cuáles cuales cuánto
		cuánta cuántos cuántas cuanto cuanta cuantos cuantas por porqué es son era eran fue fueron será está están estaba
		estamos ha han hay había tiene tienen hace va van se me te le lo la las los el un una unos unas de del en a al con
		sin para y o pero si dime di sabes ahora mismo actualmente aquí algo alguien algún alguna algunos algunas todo
		todos todas no mi mis tu su sus existe existen`),
}

func set(words string) map[string]bool {
	out := map[string]bool{}
	for _, w := range strings.Fields(words) {
		out[w] = true
	}
	return out
}
