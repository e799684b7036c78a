package home_test

import (
	"testing"

	"github.com/harkbox/hark/locale"
	"github.com/harkbox/hark/reply/command"
	"github.com/harkbox/hark/reply/command/home/hatest"
)

// hogar is a home named in Spanish and French whose devices differ in
// gender: in the "Salón" a floor lamp, a ceiling light, a blind, a fan, a
// TV and a lamp of a brand, "Govee"; in the "Cuisine" a lamp, a ceiling
// light and two shutters, one "Store".
func hogar(t *testing.T) *hatest.HA {
	return hatest.New(t, []hatest.Floor{{ID: "baja", Name: "Planta baja"}},
		[]hatest.Area{{ID: "salon", Name: "Salón", Floor: "baja"}, {ID: "cuisine", Name: "Cuisine", Floor: "baja"}},
		nil,
		[]hatest.Entity{
			entity("light.salon_pie", "Lámpara de pie", "off", "salon"),
			entity("light.salon_techo", "Luz del techo", "off", "salon"),
			entity("cover.salon_persiana", "Persiana", "open", "salon", "device_class", "blind"),
			entity("fan.salon", "Ventilador", "off", "salon"),
			entity("media_player.tele", "Tele", "off", "salon"),
			entity("switch.govee", "Govee", "off", "salon"),
			entity("light.cuisine_lampe", "Lampe", "off", "cuisine"),
			entity("light.cuisine_plafonnier", "Plafonnier", "off", "cuisine"),
			entity("cover.cuisine_volet", "Volet", "open", "cuisine", "device_class", "shutter"),
			entity("cover.cuisine_store", "Store", "open", "cuisine", "device_class", "shutter"),
		})
}

// TestRepliesAgreeWithTheDevice: a Spanish or French reply's participle
// agrees with the device's noun in gender and number: from the article
// the user said before the name, else from the name's first word (its
// ending, with the usual exceptions: "luz" and "tele" are feminine,
// "store" masculine); several devices are plural, feminine only when all
// are.
func TestRepliesAgreeWithTheDevice(t *testing.T) {
	for _, tt := range []struct {
		lang       locale.Lang
		said, want string
	}{
		{locale.Spanish, "enciende la lámpara de pie", "Lámpara de pie encendida."},
		{locale.Spanish, "apaga lámpara de pie", "Lámpara de pie apagada."},
		{locale.Spanish, "pon la lámpara de pie al 50%", "Lámpara de pie puesta al 50 por ciento."},
		{locale.Spanish, "enciende luz del techo", "Luz del techo encendida."},
		{locale.Spanish, "enciende el ventilador", "Ventilador encendido."},
		{locale.Spanish, "cierra la persiana", "Persiana cerrada."},
		{locale.Spanish, "enciende tele", "Tele encendida."},
		{locale.Spanish, "enciende la govee", "Govee encendida."},
		{locale.Spanish, "apaga las luces del salón", "Lámpara de pie y Luz del techo apagadas."},
		{locale.French, "allume la lampe", "Lampe allumée."},
		{locale.French, "allume lampe", "Lampe allumée."},
		{locale.French, "allume le plafonnier", "Plafonnier allumé."},
		{locale.French, "ferme le store", "Store fermé."},
		{locale.French, "ferme les volets de la cuisine", "Volet et Store fermés."},
		{locale.French, "allume les lumières de la cuisine", "Lampe et Plafonnier allumés."},
		{locale.Spanish, "está la lámpara de pie encendida", "No, Lámpara de pie está apagada."},
		{locale.French, "est-ce que la lampe est allumée", "Non, Lampe est éteinte."},
	} {
		ha := hogar(t)
		reg := speakerIn(t, ha, "")
		u := reg.Understand(t.Context(), tt.lang, tt.said)
		if !u.OK {
			t.Errorf("%s %q: not carried out (%s %s: %s)", tt.lang, tt.said, u.Intent, u.Reason, u.Detail)
			continue
		}
		resp := reg.RunRoute(locale.WithLanguage(t.Context(), string(tt.lang)), u.Route, tt.said)
		if resp.Kind != command.Success || resp.Spoken != tt.want {
			t.Errorf("%s %q: said %q (%v), want %q", tt.lang, tt.said, resp.Spoken, ha.CallsMade(), tt.want)
		}
	}
}
