package builtin

import (
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/storage"
)

// offlineCase is an utterance in one language and the call the offline
// path makes for it: the command and its arguments as printed.
type offlineCase struct {
	say, command, args string
}

var offlineCases = map[locale.Lang][]offlineCase{
	locale.German: {
		{"stell einen Timer für 5 Minuten", "set_timer", "map[duration:5m0s]"},
		{"Stell einen Timer für fünf Minuten.", "set_timer", "map[duration:5m0s]"},
		{"Timer auf zehn Minuten", "set_timer", "map[duration:10m0s]"},
		{"stelle einen Nudeltimer auf 8 Minuten", "set_timer", "map[duration:8m0s name:Nudel]"},
		{"stell mir bitte einen Timer für eine halbe Stunde", "set_timer", "map[duration:30m0s]"},
		{"Timer für anderthalb Stunden", "set_timer", "map[duration:1h30m0s]"},
		{"stell einen Timer auf zwei einhalb Minuten", "set_timer", "map[duration:2m30s]"},
		{"Timer für drei einhalb Stunden", "set_timer", "map[duration:3h30m0s]"},
		{"stell einen Timer für eine Stunde und zwanzig Minuten", "set_timer", "map[duration:1h20m0s]"},
		{"starte einen Timer über dreiundzwanzig Sekunden", "set_timer", "map[duration:23s]"},
		{"wie viel Zeit ist noch übrig", "check_timers", "map[]"},
		{"wie lange läuft der Timer noch", "check_timers", "map[]"},
		{"lösche den Timer", "cancel_timer", "map[]"},
		{"lösche alle Timer", "cancel_timer", "map[all:true]"},
		{"brich den Nudeltimer ab", "cancel_timer", "map[name:Nudel]"},
		{"wie spät ist es", "get_current_time", "map[detail:time]"},
		{"Wie viel Uhr ist es?", "get_current_time", "map[detail:time]"},
		{"Wie spät ist es? Vielen Dank.", "get_current_time", "map[detail:time]"},
		{"Wie spät ist es? Danke schön.", "get_current_time", "map[detail:time]"},
		{"welches Datum ist heute", "get_current_time", "map[detail:date]"},
		{"welcher Tag ist heute", "get_current_time", "map[detail:date]"},
		{"welcher Tag ist morgen", "get_current_time", "map[day:tomorrow detail:date]"},
		{"wie viele Tage bis Weihnachten", "get_current_time", "map[day:december 25 detail:until]"},
		{"stell einen Wecker auf 7 Uhr", "set_alarm", "map[time:7]"},
		{"weck mich morgen um halb acht", "set_alarm", "map[day:tomorrow time:7:30]"},
		{"weck mich werktags um 6 Uhr 30", "set_alarm", "map[repeat:monday tuesday wednesday thursday friday time:6:30]"},
		{"weck mich nächsten Montag um 8", "set_alarm", "map[day:monday time:8]"},
		{"stell einen Wecker für nächsten Montag um 8 Uhr", "set_alarm", "map[day:monday time:8]"},
		{"weck mich am kommenden Freitag um 7", "set_alarm", "map[day:friday time:7]"},
		{"weck mich am Montag um 8", "set_alarm", "map[day:monday time:8]"},
		{"stell den Wecker auf viertel nach sieben", "set_alarm", "map[time:7:15]"},
		{"welche Wecker habe ich", "list_reminders", "map[kind:alarms]"},
		{"lösche den Wecker um 7 Uhr", "cancel_reminder", "map[kind:alarm which:7]"},
		{"erinnere mich in zehn Minuten an die Wäsche", "set_reminder", "map[in:10m0s message:die Wäsche]"},
		{"erinnere mich morgen um 9 Uhr daran, den Müll rauszubringen", "set_reminder", "map[at:9 day:tomorrow message:den Müll rauszubringen]"},
		{"erinnere mich nächsten Montag um 9 Uhr an den Arzttermin", "set_reminder", "map[at:9 day:monday message:den Arzttermin]"},
		{"erinnere mich am Montag um 9 Uhr an den Arzttermin", "set_reminder", "map[at:9 day:monday message:den Arzttermin]"},
		{"erinnere mich Montag an den Arzttermin", "set_reminder", "map[day:monday message:den Arzttermin]"},
		{"erinnere mich übermorgen um 9 an die Steuer", "set_reminder", "map[at:9 day:day after tomorrow message:die Steuer]"},
		{"erinnere mich morgen früh an den Klempner", "set_reminder", "map[at:9 am day:tomorrow message:den Klempner]"},
		{"erinnere mich morgen Abend daran, die Blumen zu gießen", "set_reminder", "map[at:7 pm day:tomorrow message:die Blumen zu gießen]"},
		{"weck mich übermorgen um 6", "set_alarm", "map[day:day after tomorrow time:6]"},
		{"erinnere mich nächste Woche Montag um 9 Uhr an den Arzttermin", "set_reminder", "map[at:9 day:monday next week message:den Arzttermin]"},
		{"erinnere mich am Mittwoch nächster Woche um 9 an den Arzttermin", "set_reminder", "map[at:9 day:wednesday next week message:den Arzttermin]"},
		{"weck mich nächste Woche Dienstag um 7", "set_alarm", "map[day:tuesday next week time:7]"},
		{"erinnere mich Montag um 9 Uhr an den Arzttermin", "set_reminder", "map[at:9 day:monday message:den Arzttermin]"},
		{"erinnere mich an den Arzttermin in einer Stunde", "set_reminder", "map[in:1h0m0s message:den Arzttermin]"},
		{"lauter", "control_volume", "map[action:up]"},
		{"mach leiser", "control_volume", "map[action:down]"},
		{"stell die Lautstärke auf 40", "control_volume", "map[action:set level:40]"},
		{"Ton aus", "control_volume", "map[action:mute]"},
		{"wie laut bist du", "control_volume", "map[action:get]"},
		{"stopp", "stop", "map[]"},
		{"was ist zwölf mal vier", "calculate", "map[a:12 b:4 operation:multiply]"},
		{"was ist 100 geteilt durch 8", "calculate", "map[a:100 b:8 operation:divide]"},
		{"15 Prozent von 80", "calculate", "map[a:15 b:80 operation:percent]"},
		{"dreiundzwanzig plus neunzehn", "calculate", "map[a:23 b:19 operation:add]"},
		{"was ist zwei Komma fünf minus eins", "calculate", "map[a:2.5 b:1 operation:subtract]"},
		{"wie viele Kilometer sind 5 Meilen", "convert_measurement", "map[from_unit:mi to_unit:km value:5]"},
		{"rechne 10 Grad Celsius in Fahrenheit", "convert_measurement", "map[from_unit:c to_unit:f value:10]"},
		{"merk dir, dass mein Fahrrad blau ist", "remember", "map[fact:mein Fahrrad blau ist]"},
		{"was weißt du über mein Fahrrad", "search_memory", "map[query:mein Fahrrad]"},
		{"vergiss, dass mein Fahrrad blau ist", "forget", "map[fact:mein Fahrrad blau ist]"},
		{"Wie ist deine Webadresse?", "device_status", "map[detail:web]"},
		{"Was ist deine IP-Adresse?", "device_status", "map[detail:ip]"},
	},
	locale.French: {
		{"mets un minuteur de 5 minutes", "set_timer", "map[duration:5m0s]"},
		{"Mets un minuteur de cinq minutes.", "set_timer", "map[duration:5m0s]"},
		{"minuteur de dix minutes", "set_timer", "map[duration:10m0s]"},
		{"mets un minuteur pour les pâtes de 8 minutes", "set_timer", "map[duration:8m0s name:pâtes]"},
		{"règle un minuteur d'une demi-heure", "set_timer", "map[duration:30m0s]"},
		{"lance un minuteur de vingt-cinq minutes", "set_timer", "map[duration:25m0s]"},
		{"mets un minuteur d'une heure et demie", "set_timer", "map[duration:1h30m0s]"},
		{"mets un minuteur de deux minutes et demie", "set_timer", "map[duration:2m30s]"},
		{"combien de temps reste-t-il", "check_timers", "map[]"},
		{"annule le minuteur", "cancel_timer", "map[]"},
		{"annule tous les minuteurs", "cancel_timer", "map[all:true]"},
		{"quelle heure est-il", "get_current_time", "map[detail:time]"},
		{"Quelle heure est-il ?", "get_current_time", "map[detail:time]"},
		{"Quelle heure est-il ? Merci beaucoup.", "get_current_time", "map[detail:time]"},
		{"Quelle heure est-il, s'il vous plaît ?", "get_current_time", "map[detail:time]"},
		{"quelle est la date", "get_current_time", "map[detail:date]"},
		{"quel jour sommes-nous", "get_current_time", "map[detail:date]"},
		{"quel jour sommes-nous demain", "get_current_time", "map[day:tomorrow detail:date]"},
		{"combien de jours avant Noël", "get_current_time", "map[day:december 25 detail:until]"},
		{"mets une alarme à 7 heures", "set_alarm", "map[time:7]"},
		{"réveille-moi demain à 7 h 30", "set_alarm", "map[day:tomorrow time:7:30]"},
		{"réveille-moi en semaine à six heures et demie", "set_alarm", "map[repeat:monday tuesday wednesday thursday friday time:6:30]"},
		{"réveille-moi lundi prochain à 8 heures", "set_alarm", "map[day:monday time:8]"},
		{"mets un réveil pour vendredi qui vient à 7 heures", "set_alarm", "map[day:friday time:7]"},
		{"réveille-moi lundi à 8 heures", "set_alarm", "map[day:monday time:8]"},
		{"mets un réveil à 8 heures moins le quart", "set_alarm", "map[time:7:45]"},
		{"mets une alarme pour demain à 6 heures du matin", "set_alarm", "map[day:tomorrow time:6 am]"},
		{"quels réveils ai-je", "list_reminders", "map[kind:alarms]"},
		{"quels sont mes rappels", "list_reminders", "map[kind:reminders]"},
		{"supprime l'alarme de 7 heures", "cancel_reminder", "map[kind:alarm which:7]"},
		{"rappelle-moi dans dix minutes de sortir le linge", "set_reminder", "map[in:10m0s message:sortir le linge]"},
		{"rappelle-moi demain à 9 heures d'appeler maman", "set_reminder", "map[at:9 day:tomorrow message:appeler maman]"},
		{"rappelle-moi lundi prochain à 9 heures d'appeler le médecin", "set_reminder", "map[at:9 day:monday message:appeler le médecin]"},
		{"rappelle-moi ce lundi à 9 heures d'appeler le médecin", "set_reminder", "map[at:9 day:monday message:appeler le médecin]"},
		{"rappelle-moi d'appeler le médecin lundi", "set_reminder", "map[day:monday message:appeler le médecin]"},
		{"rappelle-moi après-demain à 9 heures de payer les impôts", "set_reminder", "map[at:9 day:day after tomorrow message:payer les impôts]"},
		{"rappelle-moi demain matin d'appeler le plombier", "set_reminder", "map[at:9 am day:tomorrow message:appeler le plombier]"},
		{"rappelle-moi lundi soir d'arroser les plantes", "set_reminder", "map[at:7 pm day:monday message:arroser les plantes]"},
		{"rappelle-moi lundi d'appeler le médecin", "set_reminder", "map[day:monday message:appeler le médecin]"},
		{"rappelle-moi mercredi de la semaine prochaine à 9 heures d'appeler le médecin", "set_reminder", "map[at:9 day:wednesday next week message:appeler le médecin]"},
		{"rappelle-moi lundi à 9 heures d'appeler le médecin", "set_reminder", "map[at:9 day:monday message:appeler le médecin]"},
		{"plus fort", "control_volume", "map[action:up]"},
		{"moins fort", "control_volume", "map[action:down]"},
		{"mets le volume à 40", "control_volume", "map[action:set level:40]"},
		{"coupe le son", "control_volume", "map[action:mute]"},
		{"quel est le volume", "control_volume", "map[action:get]"},
		{"stop", "stop", "map[]"},
		{"tais-toi", "stop", "map[]"},
		{"combien font douze fois quatre", "calculate", "map[a:12 b:4 operation:multiply]"},
		{"combien font cent divisé par huit", "calculate", "map[a:100 b:8 operation:divide]"},
		{"quinze pour cent de quatre-vingts", "calculate", "map[a:15 b:80 operation:percent]"},
		{"combien font soixante-dix plus vingt et un", "calculate", "map[a:70 b:21 operation:add]"},
		{"quatre-vingt-dix-sept moins deux", "calculate", "map[a:97 b:2 operation:subtract]"},
		{"combien de kilomètres dans 5 miles", "convert_measurement", "map[from_unit:mi to_unit:km value:5]"},
		{"convertis 10 degrés celsius en fahrenheit", "convert_measurement", "map[from_unit:c to_unit:f value:10]"},
		{"souviens-toi que mon vélo est bleu", "remember", "map[fact:mon vélo est bleu]"},
		{"que sais-tu de mon vélo", "search_memory", "map[query:mon vélo]"},
		{"oublie que mon vélo est bleu", "forget", "map[fact:mon vélo est bleu]"},
		{"Quelle est l'adresse de ta page web ?", "device_status", "map[detail:web]"},
		{"Quelle est ton adresse IP ?", "device_status", "map[detail:ip]"},
	},
	locale.Spanish: {
		{"cuánto es doce por cuatro", "calculate", "map[a:12 b:4 operation:multiply]"},
		{"¿Cuánto es doce por cuatro?", "calculate", "map[a:12 b:4 operation:multiply]"},
		{"cuánto es cien entre ocho", "calculate", "map[a:100 b:8 operation:divide]"},
		{"quince por ciento de ochenta", "calculate", "map[a:15 b:80 operation:percent]"},
		{"cuánto es treinta y dos más diez", "calculate", "map[a:32 b:10 operation:add]"},
		{"cuánto es dos coma cinco por cuatro", "calculate", "map[a:2.5 b:4 operation:multiply]"},
		{"cuánto es doscientos cincuenta menos uno", "calculate", "map[a:250 b:1 operation:subtract]"},
		{"qué hora es", "get_current_time", "map[detail:time]"},
		{"¿Qué hora es? Muchas gracias.", "get_current_time", "map[detail:time]"},
		{"qué fecha es hoy", "get_current_time", "map[detail:date]"},
		{"qué día es hoy", "get_current_time", "map[detail:date]"},
		{"qué día es mañana", "get_current_time", "map[day:tomorrow detail:date]"},
		{"cuántos días faltan para Navidad", "get_current_time", "map[day:december 25 detail:until]"},
		{"pon un temporizador de 5 minutos", "set_timer", "map[duration:5m0s]"},
		{"pon un temporizador de cinco minutos", "set_timer", "map[duration:5m0s]"},
		{"temporizador de diez minutos", "set_timer", "map[duration:10m0s]"},
		{"pon un temporizador para la pasta de 8 minutos", "set_timer", "map[duration:8m0s name:pasta]"},
		{"pon un temporizador de media hora", "set_timer", "map[duration:30m0s]"},
		{"pon un temporizador de una hora y media", "set_timer", "map[duration:1h30m0s]"},
		{"pon un temporizador de dos minutos y medio", "set_timer", "map[duration:2m30s]"},
		{"pon un temporizador de tres horas y media", "set_timer", "map[duration:3h30m0s]"},
		{"cuánto tiempo queda", "check_timers", "map[]"},
		{"cancela el temporizador", "cancel_timer", "map[]"},
		{"cancela todos los temporizadores", "cancel_timer", "map[all:true]"},
		{"pon una alarma a las 7", "set_alarm", "map[time:7]"},
		{"despiértame mañana a las siete y media", "set_alarm", "map[day:tomorrow time:7:30]"},
		{"despiértame a la una", "set_alarm", "map[time:1]"},
		{"pon una alarma a la una y media", "set_alarm", "map[time:1:30]"},
		{"pon una alarma a la una menos cuarto", "set_alarm", "map[time:12:45]"},
		{"despiértame entre semana a las seis", "set_alarm", "map[repeat:monday tuesday wednesday thursday friday time:6]"},
		{"pon una alarma el próximo lunes a las 8", "set_alarm", "map[day:monday time:8]"},
		{"despiértame el lunes que viene a las 7", "set_alarm", "map[day:monday time:7]"},
		{"pon una alarma el lunes a las 8", "set_alarm", "map[day:monday time:8]"},
		{"pon una alarma para las 8 menos cuarto de la mañana", "set_alarm", "map[time:7:45 am]"},
		{"qué alarmas tengo", "list_reminders", "map[kind:alarms]"},
		{"borra la alarma de las 7", "cancel_reminder", "map[kind:alarm which:7]"},
		{"recuérdame en diez minutos sacar la ropa", "set_reminder", "map[in:10m0s message:sacar la ropa]"},
		{"recuérdame mañana a las 9 que llame a mamá", "set_reminder", "map[at:9 day:tomorrow message:llame a mamá]"},
		{"recuérdame que llame a mamá en una hora", "set_reminder", "map[in:1h0m0s message:llame a mamá]"},
		{"recuérdame el viernes a las 10 de la mañana comprar pan", "set_reminder", "map[at:10 am day:friday message:comprar pan]"},
		{"recuérdame el próximo viernes a las 10 comprar pan", "set_reminder", "map[at:10 day:friday message:comprar pan]"},
		{"recuérdame este lunes a las 9 llamar al médico", "set_reminder", "map[at:9 day:monday message:llamar al médico]"},
		{"recuérdame llamar al médico lunes", "set_reminder", "map[day:monday message:llamar al médico]"},
		{"recuérdame pasado mañana a las 9 pagar los impuestos", "set_reminder", "map[at:9 day:day after tomorrow message:pagar los impuestos]"},
		{"recuérdame mañana por la mañana llamar al fontanero", "set_reminder", "map[at:9 am day:tomorrow message:llamar al fontanero]"},
		{"recuérdame mañana por la tarde regar las plantas", "set_reminder", "map[at:3 pm day:tomorrow message:regar las plantas]"},
		{"despiértame este lunes a las 7", "set_alarm", "map[day:monday time:7]"},
		{"recuérdame el miércoles de la semana que viene a las 9 llamar al médico", "set_reminder", "map[at:9 day:wednesday next week message:llamar al médico]"},
		{"sube el volumen", "control_volume", "map[action:up]"},
		{"baja el volumen", "control_volume", "map[action:down]"},
		{"pon el volumen al 40", "control_volume", "map[action:set level:40]"},
		{"silencia", "control_volume", "map[action:mute]"},
		{"cuál es el volumen", "control_volume", "map[action:get]"},
		{"para", "stop", "map[]"},
		{"cuántos kilómetros son 5 millas", "convert_measurement", "map[from_unit:mi to_unit:km value:5]"},
		{"convierte 10 grados celsius a fahrenheit", "convert_measurement", "map[from_unit:c to_unit:f value:10]"},
		{"recuerda que mi bici es azul", "remember", "map[fact:mi bici es azul]"},
		{"qué sabes de mi bici", "search_memory", "map[query:mi bici]"},
		{"olvida que mi bici es azul", "forget", "map[fact:mi bici es azul]"},
		{"¿Cuál es tu dirección web?", "device_status", "map[detail:web]"},
		{"¿Cuál es tu dirección IP?", "device_status", "map[detail:ip]"},
	},
}

// TestOfflineLanguages: each language's ordinary phrasings reach the same
// commands, with the same arguments, as English does, with no model.
func TestOfflineLanguages(t *testing.T) {
	f := newFixture(t)
	for l, cases := range offlineCases {
		if len(cases) < 30 {
			t.Errorf("%s has %d offline cases, want at least 30", l, len(cases))
		}
		for _, c := range cases {
			u := f.reg.Understand(t.Context(), l, c.say)
			if !u.OK {
				t.Errorf("%s %q: no command claimed it (%s %s: %s), want %s", l, c.say, u.Intent, u.Reason, u.Detail, c.command)
				continue
			}
			if got := fmt.Sprint(u.Route.Claim.Arguments); u.Route.Command.Name != c.command || got != c.args {
				t.Errorf("%s %q: %s %s, want %s %s", l, c.say, u.Route.Command.Name, got, c.command, c.args)
			}
		}
	}
}

// TestOfflineLanguagesLeaveTheRest: what the phrasebooks do not know is
// claimed by no command, so it goes to the model.
func TestOfflineLanguagesLeaveTheRest(t *testing.T) {
	f := newFixture(t)
	for l, says := range map[locale.Lang][]string{
		locale.German:  {"erzähl mir einen Witz", "wer hat den Timer erfunden", "eine Frage zu Paris", "was ist die Hauptstadt von Frankreich"},
		locale.French:  {"raconte-moi une blague", "qui a inventé le minuteur", "quelle est la capitale de l'Espagne", "rappelle-moi d'acheter des fleurs pour dimanche"},
		locale.Spanish: {"cuéntame un chiste", "quién inventó el temporizador", "cuál es la capital de Italia", "recuérdame comprar flores para el domingo"},
	} {
		for _, s := range says {
			if u := f.reg.Understand(t.Context(), l, s); u.OK {
				t.Errorf("%s %q was claimed by %s %v", l, s, u.Route.Command.Name, u.Route.Claim.Arguments)
			}
		}
	}
}

// TestYesAndNo: a yes or a no in each language reads as the English one,
// which a command waiting for a confirmation hears.
func TestYesAndNo(t *testing.T) {
	for l, words := range map[locale.Lang][2]string{locale.German: {"Ja.", "nein"}, locale.French: {"oui", "Non."}, locale.Spanish: {"Sí.", "no"}} {
		if got := l.Canonical(words[0]); got != "yes" {
			t.Errorf("%s %q read as %q, want yes", l, words[0], got)
		}
		if got := l.Canonical(words[1]); got != "no" {
			t.Errorf("%s %q read as %q, want no", l, words[1], got)
		}
	}
}

// TestAtNight: a time said "at night" in each language is the night's:
// twelve is midnight, one to five the small hours, later the evening.
// The fixture's clock is Sunday 10:15, so the small hours are Monday's.
func TestAtNight(t *testing.T) {
	for l, cases := range map[locale.Lang][]struct {
		say string
		due string
	}{
		locale.English: {
			{"set an alarm for twelve tonight", "Mon 00:00"},
			{"set an alarm for half past twelve at night", "Mon 00:30"},
			{"set an alarm for 3 at night", "Mon 03:00"},
			{"set an alarm for 11 at night", "Sun 23:00"},
			{"set an alarm for tonight at 12", "Mon 00:00"},
			{"set an alarm for 9 tonight", "Sun 21:00"},
			{"remind me at 12 tonight to lock the door", "Mon 00:00"},
			{"remind me tonight at 1 to lock the door", "Mon 01:00"},
			{"remind me tonight at 8 to call mom", "Sun 20:00"},
		},
		locale.German: {
			{"weck mich um drei Uhr nachts", "Mon 03:00"},
			{"stell einen Wecker auf 4 Uhr in der Nacht", "Mon 04:00"},
			{"weck mich nachts um fünf", "Mon 05:00"},
			{"weck mich heute Nacht um zwei", "Mon 02:00"},
			{"weck mich um zwölf Uhr nachts", "Mon 00:00"},
			{"weck mich um halb eins nachts", "Mon 00:30"},
			{"weck mich um elf Uhr nachts", "Sun 23:00"},
			{"weck mich abends um sieben", "Sun 19:00"},
			{"erinnere mich um drei Uhr nachts an die Wäsche", "Mon 03:00"},
		},
		locale.Spanish: {
			{"despiértame a las doce de la noche", "Mon 00:00"},
			{"despiértame a las doce y media de la noche", "Mon 00:30"},
			{"despiértame a las dos de la madrugada", "Mon 02:00"},
			{"despiértame a las once de la noche", "Sun 23:00"},
			{"despiértame esta noche a las doce", "Mon 00:00"},
			{"recuérdame a las doce de la noche sacar la basura", "Mon 00:00"},
		},
		locale.French: {
			{"réveille-moi à deux heures de la nuit", "Mon 02:00"},
			{"réveille-moi cette nuit à trois heures", "Mon 03:00"},
			{"réveille-moi à une heure du matin", "Mon 01:00"},
			{"réveille-moi à onze heures du soir", "Sun 23:00"},
			{"réveille-moi à minuit", "Mon 00:00"},
		},
	} {
		for _, c := range cases {
			ringsAt(t, l, c.say, c.due)
		}
	}
}

// TestNoonAndMidnight: an alarm said from noon or midnight in each
// language rings then: "minuit et demie" is half past midnight, "midi
// moins le quart" a quarter to noon. The fixture's clock is Sunday 10:15.
func TestNoonAndMidnight(t *testing.T) {
	for l, cases := range map[locale.Lang][]struct {
		say string
		due string
	}{
		locale.English: {
			{"wake me at half past midnight", "Mon 00:30"},
			{"wake me up at 6.30", "Mon 06:30"}, // as whisper writes it
			{"wake me at quarter past noon", "Sun 12:15"},
			{"wake me at quarter to midnight", "Sun 23:45"},
		},
		locale.French: {
			{"réveille-moi à minuit et demie", "Mon 00:30"},
			{"réveille-moi à midi et quart", "Sun 12:15"},
			{"réveille-moi à minuit moins le quart", "Sun 23:45"},
			{"réveille-moi à midi moins le quart", "Sun 11:45"},
			{"réveille-moi à minuit dix", "Mon 00:10"},
			{"mets une alarme pour minuit et demie", "Mon 00:30"},
			{"mets une alarme pour minuit", "Mon 00:00"},
			{"rappelle-moi à minuit et demie de sortir la poubelle", "Mon 00:30"},
		},
		locale.Spanish: {
			{"despiértame a medianoche y media", "Mon 00:30"},
			{"despiértame a la medianoche y media", "Mon 00:30"},
			{"despiértame a mediodía y cuarto", "Sun 12:15"},
			{"despiértame a medianoche menos cuarto", "Sun 23:45"},
			{"despiértame al mediodía", "Sun 12:00"},
		},
		locale.German: {
			{"weck mich um halb eins nachts", "Mon 00:30"},
			{"weck mich um Viertel nach Mitternacht", "Mon 00:15"},
			{"weck mich um Viertel vor Mitternacht", "Sun 23:45"},
		},
	} {
		for _, c := range cases {
			ringsAt(t, l, c.say, c.due)
		}
	}
}

// spokenCase is an utterance in one language and what the offline path
// says to it.
type spokenCase struct {
	l         locale.Lang
	say, want string
}

// answersOffline checks that each case, understood offline on f and run,
// is answered as it wants.
func answersOffline(t *testing.T, f *fixture, cases []spokenCase) {
	t.Helper()
	for _, c := range cases {
		u := f.reg.Understand(t.Context(), c.l, c.say)
		if !u.OK {
			t.Errorf("%s %q: not understood (%s %s)", c.l, c.say, u.Reason, u.Detail)
			continue
		}
		if r := f.reg.RunRoute(locale.WithLanguage(t.Context(), string(c.l)), u.Route, c.say); r.Spoken != c.want {
			t.Errorf("%s %q: said %q, want %q", c.l, c.say, r.Spoken, c.want)
		}
	}
}

// ringsAt checks that say, understood offline in l and run on a fresh
// fixture, sets one alarm or reminder, due at due ("Mon 15:04", Berlin).
func ringsAt(t *testing.T, l locale.Lang, say, due string) {
	t.Helper()
	f := newFixture(t)
	u := f.reg.Understand(t.Context(), l, say)
	if !u.OK {
		t.Errorf("%s %q: not understood: %s", l, say, u.Detail)
		return
	}
	resp := f.reg.RunRoute(locale.WithLanguage(t.Context(), string(l)), u.Route, say)
	items, _ := f.sched.Pending(t.Context(), storage.Alarm, storage.Reminder)
	if len(items) != 1 {
		t.Errorf("%s %q: said %q, %d alarms and reminders; want one", l, say, resp.Spoken, len(items))
		return
	}
	if got := items[0].Due.In(berlin).Format("Mon 15:04"); got != due {
		t.Errorf("%s %q: due %s (%s %v, said %q); want %s", l, say, got, u.Route.Command.Name, u.Route.Claim.Arguments, resp.Spoken, due)
	}
}

// TestClockPhrasings: times said as minutes past or to an hour
// ("zehn nach sieben", "fünf vor halb acht"), as an hour at midday
// ("zwölf Uhr mittags", "las doce del mediodía", "la una del
// mediodía") or as minutes after midnight or noon ("midnight thirty")
// ring then. The fixture's clock is Sunday 10:15: an alarm at "sieben"
// is a wake-up, Monday's 07:00 (TestAlarmHourIsAWakeUp); a reminder at
// "zwanzig vor neun" is the next 8:40, this evening's.
func TestClockPhrasings(t *testing.T) {
	for l, cases := range map[locale.Lang][]struct {
		say string
		due string
	}{
		locale.German: {
			{"weck mich um zehn nach sieben", "Mon 07:10"},
			{"weck mich morgen um zehn nach sieben", "Mon 07:10"},
			{"weck mich um zehn Minuten vor acht", "Mon 07:50"},
			{"weck mich um fünf vor halb acht", "Mon 07:25"},
			{"weck mich um fünf nach halb acht", "Mon 07:35"},
			{"weck mich um viertel vor acht", "Mon 07:45"},
			{"weck mich morgen um viertel vor acht", "Mon 07:45"},
			{"weck mich um zwölf Uhr mittags", "Sun 12:00"},
			{"weck mich um ein Uhr mittags", "Sun 13:00"},
			{"stell einen Wecker auf zehn nach sieben", "Mon 07:10"},
			{"erinnere mich um zwanzig vor neun an die Wäsche", "Sun 20:40"},
			{"weck mich um 6.30 Uhr", "Mon 06:30"}, // as whisper writes it
			{"weck mich morgen um 6.30", "Mon 06:30"},
		},
		locale.Spanish: {
			{"despiértame a las doce del mediodía", "Sun 12:00"},
			{"despiértame a las doce y media del mediodía", "Sun 12:30"},
			{"despiértame a la una del mediodía", "Sun 13:00"},
			{"pon una alarma a las doce del mediodía", "Sun 12:00"},
			{"despiértame a las 6.30", "Mon 06:30"}, // as whisper writes it
			{"despiértame mañana a las 6.30", "Mon 06:30"},
			{"recuérdame a las 8.45 sacar la basura", "Sun 20:45"},
		},
		locale.French: {
			{"réveille-moi à 6.30", "Mon 06:30"}, // as whisper writes it
			{"réveille-moi demain à 6.30", "Mon 06:30"},
			{"rappelle-moi à 8.45 de sortir les poubelles", "Sun 20:45"},
		},
		locale.English: {
			{"wake me at midnight thirty", "Mon 00:30"},
			{"set an alarm for midnight fifteen", "Mon 00:15"},
			{"wake me at noon thirty", "Sun 12:30"},
			{"wake me at half past midnight", "Mon 00:30"},
			{"wake me up at 6.30", "Mon 06:30"}, // as whisper writes it
		},
	} {
		for _, c := range cases {
			ringsAt(t, l, c.say, c.due)
		}
	}
}

// TestNamedTimersInEachLanguage: a timer is named as a household names it
// ("Eier Timer", "Nudel-Timer", "el temporizador de la pasta"), and found
// again by that name, with no verb, article or hyphen taken into it.
func TestNamedTimersInEachLanguage(t *testing.T) {
	for _, tt := range []struct {
		l              locale.Lang
		set, name, use string
	}{
		{locale.German, "stell einen Eier Timer auf 3 Minuten", "Eier", "lösche den Eier Timer"},
		{locale.German, "stelle einen Nudel-Timer auf 8 Minuten", "Nudel", "pausiere den Nudel Timer"},
		{locale.German, "stell einen Nudeltimer auf 8 Minuten", "Nudel", "pausiere den Nudel Timer"},
		{locale.Spanish, "pon un temporizador para la pasta de 8 minutos", "pasta", "pausa el temporizador de la pasta"},
		{locale.Spanish, "pon un temporizador de huevos de 3 minutos", "huevos", "cancela el temporizador de huevos"},
		{locale.French, "mets un minuteur pour les pâtes de 8 minutes", "pâtes", "mets en pause le minuteur des pâtes"},
	} {
		f := newFixture(t)
		u := f.reg.Understand(t.Context(), tt.l, tt.set)
		if !u.OK {
			t.Errorf("%s %q: not understood (%s %s)", tt.l, tt.set, u.Reason, u.Detail)
			continue
		}
		f.reg.RunRoute(t.Context(), u.Route, tt.set)
		timers, _ := f.sched.Pending(t.Context(), storage.Timer)
		if len(timers) != 1 || timers[0].Name != tt.name {
			t.Errorf("%s %q: timers %+v, want one named %q", tt.l, tt.set, timers, tt.name)
			continue
		}
		u = f.reg.Understand(t.Context(), tt.l, tt.use)
		if !u.OK {
			t.Errorf("%s %q: not understood (%s %s)", tt.l, tt.use, u.Reason, u.Detail)
			continue
		}
		if r := f.reg.RunRoute(t.Context(), u.Route, tt.use); r.Data["timer_id"] != timers[0].ID && r.Data["cancelled"] != 1 {
			t.Errorf("%s %q after %q: said %q, %v; want the %s timer found", tt.l, tt.use, tt.set, r.Spoken, r.Data, tt.name)
		}
	}
}

// TestWhatCanYouDoAndThanks: with no model, "what can you do" is told what
// works offline, and a thank-you is answered, in the language it was said.
func TestWhatCanYouDoAndThanks(t *testing.T) {
	f := newFixture(t)
	for _, tt := range []struct {
		l         locale.Lang
		say, want string
	}{
		{locale.English, "what can you do", "timers"},
		{locale.English, "help", "timers"},
		{locale.English, "what can I ask you", "timers"},
		{locale.German, "was kannst du", "Timer"},
		{locale.German, "was kannst du alles", "Timer"},
		{locale.Spanish, "qué puedes hacer", "temporizadores"},
		{locale.French, "que sais-tu faire", "minuteurs"},
		{locale.French, "qu'est-ce que tu peux faire", "minuteurs"},
		{locale.English, "thank you", "welcome"},
		{locale.English, "thanks", "welcome"},
		{locale.German, "danke", "Gern"},
		{locale.German, "vielen Dank", "Gern"},
		{locale.Spanish, "gracias", "nada"},
		{locale.French, "merci", "rien"},
		{locale.French, "merci beaucoup", "rien"},
	} {
		u := f.reg.Understand(t.Context(), tt.l, tt.say)
		if !u.OK {
			t.Errorf("%s %q: not understood (%s %s)", tt.l, tt.say, u.Reason, u.Detail)
			continue
		}
		ctx := locale.WithLanguage(t.Context(), string(tt.l))
		if r := f.reg.RunRoute(ctx, u.Route, tt.say); !strings.Contains(r.Spoken, tt.want) {
			t.Errorf("%s %q: said %q, want it to say %q", tt.l, tt.say, r.Spoken, tt.want)
		}
	}
}

// TestCorrectingInEachLanguage: "nein, 10" corrects a German timer as "no,
// 10" does an English one.
func TestCorrectingInEachLanguage(t *testing.T) {
	for _, tt := range []struct {
		l        locale.Lang
		set, say string
	}{
		{locale.German, "stell einen Timer für 5 Minuten", "nein, 10"},
		{locale.French, "mets un minuteur de 5 minutes", "non, 10"},
		{locale.Spanish, "pon un temporizador de 5 minutos", "no, 10"},
	} {
		f := newFixture(t)
		for _, s := range []string{tt.set, tt.say} {
			u := f.reg.Understand(t.Context(), tt.l, s)
			if !u.OK {
				t.Fatalf("%s %q: not understood (%s %s)", tt.l, s, u.Reason, u.Detail)
			}
			f.reg.RunRoute(t.Context(), u.Route, s)
		}
		if timers, _ := f.sched.Pending(t.Context(), storage.Timer); len(timers) != 1 || timers[0].Duration != 10*time.Minute {
			t.Errorf("%s %q after %q: timers %+v, want one of 10 minutes", tt.l, tt.say, tt.set, timers)
		}
	}
}

// TestRoundedAnswersInEachLanguage: a sum or a conversion is said to a
// sensible precision, with "about" in the language when it was rounded,
// while the data keeps the full result.
func TestRoundedAnswersInEachLanguage(t *testing.T) {
	f := newFixture(t)
	for _, tt := range []struct {
		l         locale.Lang
		say, want string
		result    float64
	}{
		{locale.German, "was ist 10 geteilt durch 3", "10 geteilt durch 3 ist ungefähr 3,33.", 10.0 / 3},
		{locale.German, "rechne 100 Grad Fahrenheit in Celsius", "100 Grad Fahrenheit sind ungefähr 37,8 Grad Celsius.", (100 - 32) * 5 / 9.0},
		{locale.German, "was ist 9 geteilt durch 4", "9 geteilt durch 4 ist 2,25.", 2.25},
		{locale.Spanish, "cuánto es diez entre tres", "10 entre 3 son aproximadamente 3,33.", 10.0 / 3},
		{locale.French, "combien font dix divisé par trois", "10 divisé par 3 égale environ 3,33.", 10.0 / 3},
		{locale.French, "convertis 100 degrés fahrenheit en celsius", "100 degrés Fahrenheit, ça fait environ 37,8 degrés Celsius.", (100 - 32) * 5 / 9.0},
	} {
		u := f.reg.Understand(t.Context(), tt.l, tt.say)
		if !u.OK {
			t.Errorf("%s %q: not understood (%s %s)", tt.l, tt.say, u.Reason, u.Detail)
			continue
		}
		r := f.reg.RunRoute(locale.WithLanguage(t.Context(), string(tt.l)), u.Route, tt.say)
		if r.Spoken != tt.want || r.Data["result"] != tt.result {
			t.Errorf("%s %q: said %q, %v; want %q, result %v", tt.l, tt.say, r.Spoken, r.Data["result"], tt.want, tt.result)
		}
	}
}

// TestConversionsInEachLanguage: a conversion is understood with the
// units the box says in the language, one said as its article ("ein
// Pfund", "una libra", "une livre"), and answered in that language.
func TestConversionsInEachLanguage(t *testing.T) {
	f := newFixture(t)
	answersOffline(t, f, []spokenCase{
		{locale.German, "wie viele Gramm sind ein Pfund", "1 Pfund sind ungefähr 454 Gramm."},
		{locale.German, "wie viele Tassen sind ein Liter", "1 Liter sind ungefähr 4,23 Tassen."},
		{locale.German, "wie viele Zentimeter hat ein Zoll", "1 Zoll sind 2,54 Zentimeter."},
		{locale.German, "wie viele Teelöffel sind 2 Esslöffel", "2 Esslöffel sind 6 Teelöffel."},
		{locale.German, "wie viel Kilometer pro Stunde sind 60 Meilen pro Stunde", "60 Meilen pro Stunde sind ungefähr 96,6 Kilometer pro Stunde."},
		{locale.German, "was sind 100 Stundenkilometer in Meilen pro Stunde", "100 Kilometer pro Stunde sind ungefähr 62,1 Meilen pro Stunde."},
		{locale.German, "wie viele Kilometer sind eine Meile", "1 Meile sind ungefähr 1,61 Kilometer."},
		{locale.Spanish, "cuántos gramos hay en una libra", "1 libra son aproximadamente 454 gramos."},
		{locale.Spanish, "cuántas tazas hay en un litro", "1 litro son aproximadamente 4,23 tazas."},
		{locale.Spanish, "cuántos kilómetros por hora son 60 millas por hora", "60 millas por hora son aproximadamente 96,6 kilómetros por hora."},
		{locale.Spanish, "cuántas cucharaditas hay en una cucharada", "1 cucharada son 3 cucharaditas."},
		{locale.Spanish, "convierte 10 nudos a kilómetros por hora", "10 nudos son 18,52 kilómetros por hora."},
		{locale.French, "combien de grammes dans une livre", "1 livre, ça fait environ 454 grammes."},
		{locale.French, "combien de tasses dans un litre", "1 litre, ça fait environ 4,23 tasses."},
		{locale.French, "combien de cuillères à café dans une cuillère à soupe", "1 cuillère à soupe, ça fait 3 cuillères à café."},
		{locale.French, "convertis 10 nœuds en kilomètres par heure", "10 nœuds, ça fait 18,52 kilomètres par heure."},
		{locale.French, "combien de degrés fahrenheit font 20 degrés celsius", "20 degrés Celsius, ça fait 68 degrés Fahrenheit."},
	})
}

// TestRootsPercentsAndPowersInEachLanguage: a square or cube root, a
// percentage and a power are worked out offline in the four languages and
// said as a person says them.
func TestRootsPercentsAndPowersInEachLanguage(t *testing.T) {
	f := newFixture(t)
	answersOffline(t, f, []spokenCase{
		{locale.English, "what is the square root of 16", "The square root of 16 is 4."},
		{locale.English, "square root of 2", "The square root of 2 is about 1.41."},
		{locale.English, "what's the cube root of 27", "The cube root of 27 is 3."},
		{locale.English, "what is the square root of minus 4", "A negative number has no square root."},
		{locale.English, "what is 15 percent of 80", "15 percent of 80 is 12."},
		{locale.English, "what is 20% of 150", "20 percent of 150 is 30."},
		{locale.English, "20 % of 150", "20 percent of 150 is 30."},
		{locale.English, "what is 2 to the power of 10", "2 to the power of 10 is 1024."},
		{locale.German, "was ist die Wurzel aus 16", "Die Wurzel aus 16 ist 4."},
		{locale.German, "Quadratwurzel von 81", "Die Wurzel aus 81 ist 9."},
		{locale.German, "was ist die dritte Wurzel aus 27", "Die dritte Wurzel aus 27 ist 3."},
		{locale.German, "was sind 15 Prozent von 80", "15 Prozent von 80 sind 12."},
		{locale.German, "was sind 20% von 150", "20 Prozent von 150 sind 30."},
		{locale.German, "was ist 2 hoch 10", "2 hoch 10 ist 1024."},
		{locale.Spanish, "cuál es la raíz cuadrada de 16", "La raíz cuadrada de 16 es 4."},
		{locale.Spanish, "raíz cúbica de 27", "La raíz cúbica de 27 es 3."},
		{locale.Spanish, "cuánto es el 15 por ciento de 80", "El 15 por ciento de 80 es 12."},
		{locale.Spanish, "cuánto es el 20% de 150", "El 20 por ciento de 150 es 30."},
		{locale.Spanish, "cuánto es 2 elevado a 10", "2 elevado a 10 es 1024."},
		{locale.French, "c'est quoi la racine carrée de 16", "La racine carrée de 16, c'est 4."},
		{locale.French, "racine carrée de 16", "La racine carrée de 16, c'est 4."},
		{locale.French, "quelle est la racine carrée de 16", "La racine carrée de 16, c'est 4."},
		{locale.French, "quelle est la racine cubique de 27", "La racine cubique de 27, c'est 3."},
		{locale.French, "racine cubique de 27", "La racine cubique de 27, c'est 3."},
		{locale.French, "combien font 15 pour cent de 80", "15 pour cent de 80, ça fait 12."},
		{locale.French, "combien font 20% de 150", "20 pour cent de 150, ça fait 30."},
		{locale.French, "combien font 2 puissance 10", "2 puissance 10 égale 1024."},
	})
}

// TestHelloAndWhoAreYou: a greeting is answered with one, and "who are
// you" with the assistant's name when the turn carries it, in the language
// said, with no model. What whisper makes of silence is neither.
func TestHelloAndWhoAreYou(t *testing.T) {
	f := newFixture(t)
	for _, tt := range []struct {
		l         locale.Lang
		say, want string
		kind      command.ResponseKind
	}{
		{locale.English, "hello", "Hello! What can I do for you?", command.FollowUp},
		{locale.English, "hi", "Hello! What can I do for you?", command.FollowUp},
		{locale.English, "Hi there!", "Hello! What can I do for you?", command.FollowUp},
		{locale.English, "good morning", "Hello! What can I do for you?", command.FollowUp},
		{locale.English, "who are you", "I'm Ada, the voice assistant in this speaker.", command.Success},
		{locale.English, "what's your name", "I'm Ada, the voice assistant in this speaker.", command.Success},
		{locale.German, "hallo", "Hallo! Was kann ich für dich tun?", command.FollowUp},
		{locale.German, "guten Morgen", "Hallo! Was kann ich für dich tun?", command.FollowUp},
		{locale.German, "wer bist du", "Ich bin Ada, der Sprachassistent in diesem Lautsprecher.", command.Success},
		{locale.German, "wie heißt du", "Ich bin Ada, der Sprachassistent in diesem Lautsprecher.", command.Success},
		{locale.Spanish, "hola", "¡Hola! ¿En qué puedo ayudarte?", command.FollowUp},
		{locale.Spanish, "buenos días", "¡Hola! ¿En qué puedo ayudarte?", command.FollowUp},
		{locale.Spanish, "quién eres", "Soy Ada, el asistente de voz de este altavoz.", command.Success},
		{locale.Spanish, "cómo te llamas", "Soy Ada, el asistente de voz de este altavoz.", command.Success},
		{locale.French, "bonjour", "Bonjour ! Que puis-je faire pour toi ?", command.FollowUp},
		{locale.French, "salut", "Bonjour ! Que puis-je faire pour toi ?", command.FollowUp},
		{locale.French, "qui es-tu", "Je suis Ada, l'assistant vocal de cette enceinte.", command.Success},
		{locale.French, "comment tu t'appelles", "Je suis Ada, l'assistant vocal de cette enceinte.", command.Success},
	} {
		u := f.reg.Understand(t.Context(), tt.l, tt.say)
		if !u.OK {
			t.Errorf("%s %q: not understood (%s %s)", tt.l, tt.say, u.Reason, u.Detail)
			continue
		}
		ctx := command.WithAssistant(locale.WithLanguage(t.Context(), string(tt.l)), "Ada")
		if r := f.reg.RunRoute(ctx, u.Route, tt.say); r.Spoken != tt.want || r.Kind != tt.kind {
			t.Errorf("%s %q: said %q (kind %v), want %q (kind %v)", tt.l, tt.say, r.Spoken, r.Kind, tt.want, tt.kind)
		}
	}
	// Without a name the box still says what it is.
	u := f.reg.Understand(t.Context(), locale.English, "who are you")
	if !u.OK {
		t.Fatalf("who are you: not understood (%s %s)", u.Reason, u.Detail)
	}
	if r := f.reg.RunRoute(t.Context(), u.Route, "who are you"); r.Spoken != "I'm the voice assistant in this speaker." {
		t.Errorf("who are you, no name: said %q", r.Spoken)
	}
	// Whisper's words on silence are no greeting.
	for _, s := range []string{"you", "Thank you.", "Thanks for watching!", "bye", "hello hello hello hello"} {
		if u := f.reg.Understand(t.Context(), locale.English, s); u.OK && (u.Route.Command.Name == "greet" || u.Route.Command.Name == "introduce") {
			t.Errorf("%q was taken for %s", s, u.Route.Command.Name)
		}
	}
}

// TestHelpNamesSnoozeAndTheHome: "what can you do" tells of snoozing an
// alarm and of the home, in each language, and stays short enough to say.
func TestHelpNamesSnoozeAndTheHome(t *testing.T) {
	f := newFixture(t)
	for _, tt := range []struct {
		l       locale.Lang
		say     string
		mention []string
	}{
		{locale.English, "what can you do", []string{"snooze", "home"}},
		{locale.German, "was kannst du", []string{"schlummern", "Zuhause"}},
		{locale.Spanish, "qué puedes hacer", []string{"posponer", "casa"}},
		{locale.French, "que sais-tu faire", []string{"repousser", "maison"}},
	} {
		u := f.reg.Understand(t.Context(), tt.l, tt.say)
		if !u.OK {
			t.Errorf("%s %q: not understood (%s %s)", tt.l, tt.say, u.Reason, u.Detail)
			continue
		}
		r := f.reg.RunRoute(locale.WithLanguage(t.Context(), string(tt.l)), u.Route, tt.say)
		for _, m := range tt.mention {
			if !strings.Contains(r.Spoken, m) {
				t.Errorf("%s %q: said %q, want it to mention %q", tt.l, tt.say, r.Spoken, m)
			}
		}
		if n := len(strings.Fields(r.Spoken)); n > 60 {
			t.Errorf("%s %q: %d words, want at most 60 to say", tt.l, tt.say, n)
		}
	}
}

// TestVolumeAboveAHundred: a level past the top is not set to the top
// unsaid: the box says how far its volume goes, in the language said, and
// leaves the volume as it was.
func TestVolumeAboveAHundred(t *testing.T) {
	f := newFixture(t)
	for _, tt := range []struct {
		l         locale.Lang
		say, want string
	}{
		{locale.English, "volume 120", "Volume goes from 0 to 100."},
		{locale.English, "set the volume to 150", "Volume goes from 0 to 100."},
		{locale.German, "Lautstärke 120", "Die Lautstärke geht von 0 bis 100."},
		{locale.Spanish, "volumen 120", "El volumen va de 0 a 100."},
		{locale.French, "volume 120", "Le volume va de 0 à 100."},
	} {
		u := f.reg.Understand(t.Context(), tt.l, tt.say)
		if !u.OK {
			t.Errorf("%s %q: not understood (%s %s)", tt.l, tt.say, u.Reason, u.Detail)
			continue
		}
		r := f.reg.RunRoute(locale.WithLanguage(t.Context(), string(tt.l)), u.Route, tt.say)
		if r.Spoken != tt.want || r.Kind != command.Failure || f.mixer.level != 50 {
			t.Errorf("%s %q: said %q (kind %v), volume %d; want %q, a failure, the volume at 50", tt.l, tt.say, r.Spoken, r.Kind, f.mixer.level, tt.want)
		}
	}
}
