// Prompt-injection signals in German, French, Spanish, Italian, Portuguese and Dutch: the attack
// families' core phrasings, which users and planted text write in their own language as well
// (PINT counts non-English attacks as a category of their own; garak's probes translate theirs).
// English signals never see these: "Vergiss alle vorherigen Anweisungen" shares no word with
// "forget all previous instructions". Each kind is written for each language with the language's
// own order and negation, and weighs as its English counterpart does:
// - override: a verb that discards (ignore, forget) and the model's instructions, qualified as
//   the previous ones, all of them or the model's own, so "ignore the manufacturer's
//   instructions" is not one. A negation spares it: before the verb ("no olvide", "non ignorare",
//   "não esqueça"), between verb and noun ("vergiss nicht …"), or after ("vergeet … niet").
// - extraction: the system prompt, or the model's own instructions (possessive), asked for.
// - a new identity from now on, and a persona without limits: weak each, as "from now on you are
//   my tutor" and "a game without rules" are ordinary; together they flag.
// - developer mode (weak: phones have one) and safety filters said to be off.
// A leading word needs two ASCII letters at a word boundary (leading-words.ts), and \b knows only
// ASCII letters: a phrase that starts with "à" is anchored on its next word, and one that may end
// in an accented letter ends with END instead of \b.
import type { Signal } from './prompt-injection.ts'

/** No letter follows (\b after an accented letter would need a following ASCII letter). */
const END = '(?![\\wÀ-ɏ])'
/** Up to `n` words, none of them a negation of the language. */
const wordsBut = (negations: string, n: number) => `(?:\\s+(?!(?:${negations})\\b)[^\\s.!?]+){0,${n}}?`
const WORDS = (n: number) => `(?:\\s+[^\\s.!?]+){0,${n}}?`

const signal = (source: string, weight: number): Signal => ({ pattern: new RegExp(source, 'gi'), weight })

/** Discard verb, then the instructions qualified before the noun or after it; `after`: what may not follow. */
function override(verbs: string, negations: string, before: string, noun: string, after: string, notAfterNoun = ''): Signal {
  const spared = notAfterNoun === '' ? '' : `(?!\\s+(?:${notAfterNoun})\\b)`
  return signal(
    `\\b(?:${verbs})\\b${wordsBut(negations, 2)}\\s+(?:${before})\\b${WORDS(2)}\\s+(?:${noun})${END}${spared}` +
    `|\\b(?:${verbs})\\b${wordsBut(negations, 2)}\\s+(?:${noun})\\s+(?:${after})${END}${spared}`,
    0.9,
  )
}

const OVERRIDE: readonly Signal[] = [
  override(
    'ignorier(?:e|en\\s+sie)?|vergiss|vergessen\\s+sie|missachte(?:n\\s+sie)?|verwirf|verwerfen\\s+sie',
    'nicht|nie|niemals',
    'alle|s[äa]mtliche|deine|ihre|die\\s+(?:vorherigen|vorigen|bisherigen|obigen|vorangegangenen|vorangehenden|fr[üu]heren|urspr[üu]nglichen|alten)',
    'anweisungen|instruktionen|befehle|vorgaben|regeln|richtlinien|prompts?|systemprompts?|systemanweisungen|anordnungen',
    'von\\s+(?:vorhin|oben|davor)',
    'nicht|nie|niemals',
  ),
  override(
    'ignore[sz]?|oublie[sz]?|néglige[sz]?|neglige[sz]?|fai(?:s|tes)\\s+abstraction\\s+d(?:e|es|u)',
    'pas|jamais',
    'toutes|tous|tes|vos',
    'instructions|consignes|directives|r[èe]gles|ordres|commandes|prompts?',
    'pr[ée]c[ée]dente?s?|ant[ée]rieure?s?|ci-dessus|initiale?s?|d[\'’]origine|du\\s+syst[èe]me|syst[èe]me',
  ),
  override(
    '(?<!\\bno\\s)(?:ignora|ignore|ignoren|olvida|olvide|olvidad|olv[íi]date\\s+de|descarta|descarte|omite|omita)|haz\\s+caso\\s+omiso\\s+(?:a|de)|no\\s+hagas\\s+caso\\s+(?:a|de)',
    'no|nunca',
    'todas|todos|tus|sus',
    'instrucciones|indicaciones|reglas|normas|[óo]rdenes|directrices|pautas|consignas|prompts?',
    'anteriores|previas|de\\s+arriba|iniciales|originales|del?\\s+sistema',
  ),
  override(
    '(?<!\\bnon\\s)(?:ignora|ignorate|ignori|dimentica|dimenticate|dimentichi|trascura|tralascia|scarta)',
    'non|mai',
    'tutte|tutti|tue|tuoi|sue|vostre',
    'istruzioni|indicazioni|regole|direttive|ordini|comandi|consegne|prompts?',
    'precedenti|di\\s+prima|iniziali|originali|d[ie]l?\\s+sistema|(?:qui\\s+)?sopra|ricevute',
  ),
  override(
    '(?<!\\bn[ãa]o\\s)(?:ignore|ignora|esque[çc]a|esquece|esque[çc]am|desconsidere|desconsidera|descarte|descarta)',
    'n[ãa]o|nunca',
    'todas|todos|suas|seus|tuas|teus',
    'instru[çc][õo]es|regras|orienta[çc][õo]es|diretrizes|ordens|comandos|prompts?',
    'anteriores|pr[ée]vias|acima|iniciais|originais|d[oe]\\s+sistema',
  ),
  override(
    'negeer|negeert|vergeet|veronachtzaam',
    'niet|nooit',
    'alle|al\\s+je|je|jouw|uw|de\\s+(?:vorige|voorgaande|eerdere|bovenstaande|oorspronkelijke)',
    'instructies|aanwijzingen|regels|richtlijnen|opdrachten|prompts?|systeemprompts?',
    'van\\s+(?:hierboven|eerder|daarvoor)',
    'niet|nooit',
  ),
]

// The system prompt by name with any article, the rest of what the model was given only with
// "your": "zeig mir die Anweisungen für das Regal" asks for a manual.
const EXTRACTION: readonly Signal[] = [
  signal(
    `\\b(?:zeig(?:e|en\\s+sie)?|gib|geben\\s+sie|nenne|nennen\\s+sie|verrate|verraten\\s+sie|wiederhole|wiederholen\\s+sie|drucke|schreib(?:e)?|liste)\\b${WORDS(3)}\\s+` +
      '(?:(?:deinen|deine|dein|ihren|ihre|ihr)\\s+(?:[^\\s.!?]+\\s+)?(?:systemprompt|system-prompt|prompt|anweisungen|instruktionen|vorgaben|konfiguration|regeln)|(?:den|das|die)\\s+(?:[^\\s.!?]+\\s+)?(?:systemprompt|system-prompt|systemanweisungen?|systemnachricht))\\b' +
      '|\\bwas\\s+(?:sind|waren|ist|war)\\s+(?:deine|dein|ihre|ihr)\\s+(?:[^\\s.!?]+\\s+)?(?:anweisungen|instruktionen|regeln|vorgaben|systemprompt|prompt)\\b',
    0.8,
  ),
  signal(
    `\\b(?:montre|montrez|affiche|affichez|révèle|revele|révélez|revelez|donne|donnez|répète|repete|répétez|repetez|imprime|imprimez|dis|dites|recopie|recopiez|cite|citez)(?:-moi|-nous)?\\b${WORDS(3)}\\s+` +
      '(?:(?:ton|ta|tes|votre|vos)\\s+(?:[^\\s.!?]+\\s+)?(?:prompt|instructions|consignes|directives|r[èe]gles|configuration)|(?:le|ton|votre)\\s+(?:prompt|message)\\s+(?:syst[èe]me|initial)|(?:les|tes|vos)\\s+instructions\\s+(?:initiales|d[\'’]origine|syst[èe]me|cach[ée]es|secr[èe]tes))' + END +
      '|\\bquelles\\s+sont\\s+(?:tes|vos)\\s+(?:[^\\s.!?]+\\s+)?(?:instructions|consignes|r[èe]gles|directives)\\b',
    0.8,
  ),
  signal(
    `\\b(?:muestra|mu[ée]strame|muestre|mu[ée]streme|revela|rev[ée]lame|revele|dime|dígame|digame|dame|deme|déme|repite|rep[ií]teme|repita|imprime|escribe|escr[ií]beme|copia|cita|lista)\\b${WORDS(3)}\\s+` +
      '(?:tus?\\s+(?:[^\\s.!?]+\\s+)?(?:prompt|instrucciones|indicaciones|reglas|directrices|configuraci[óo]n)|(?:el\\s+)?(?:prompt|mensaje)\\s+del?\\s+sistema|(?:las\\s+)?instrucciones\\s+(?:iniciales|originales|del\\s+sistema|ocultas|secretas))' + END +
      '|\\bcu[áa]les\\s+son\\s+tus\\s+(?:[^\\s.!?]+\\s+)?(?:instrucciones|reglas|directrices|indicaciones)\\b',
    0.8,
  ),
  signal(
    `\\b(?:mostra|mostrami|rivela|rivelami|dimmi|dammi|ripeti|ripetimi|stampa|scrivi|scrivimi|elenca|copia|cita)\\b${WORDS(3)}\\s+` +
      '(?:(?:tuo|tuoi|tua|tue)\\s+(?:[^\\s.!?]+\\s+)?(?:prompt|istruzioni|regole|direttive|indicazioni|configurazione)|prompt\\s+d[ie]l?\\s+sistema|istruzioni\\s+(?:d[ie]l?\\s+sistema|iniziali|originali|nascoste|segrete))\\b' +
      '|\\bquali\\s+sono\\s+le\\s+tue\\s+(?:[^\\s.!?]+\\s+)?(?:istruzioni|regole|direttive)\\b',
    0.8,
  ),
  signal(
    `\\b(?:mostre|mostra|revele|revela|diga|diz|repita|repete|imprima|escreva|liste|copie|cite)\\b${WORDS(3)}\\s+` +
      '(?:(?:seu|sua|seus|suas|teu|tua|teus|tuas)\\s+(?:[^\\s.!?]+\\s+)?(?:prompt|instru[çc][õo]es|regras|diretrizes|orienta[çc][õo]es|configura[çc][ãa]o)|prompt\\s+d[oe]\\s+sistema|instru[çc][õo]es\\s+(?:do\\s+sistema|iniciais|originais|ocultas|secretas))' + END +
      '|\\bquais\\s+s[ãa]o\\s+(?:as\\s+)?(?:suas|tuas)\\s+(?:[^\\s.!?]+\\s+)?(?:instru[çc][õo]es|regras|diretrizes)' + END,
    0.8,
  ),
  signal(
    `\\b(?:toon|laat|geef|herhaal|print|onthul|noem|schrijf|citeer)\\b${WORDS(3)}\\s+` +
      '(?:(?:je|jouw|uw)\\s+(?:[^\\s.!?]+\\s+)?(?:systeemprompt|prompt|instructies|regels|richtlijnen|configuratie)|(?:de\\s+)?(?:systeemprompt|systeeminstructies))\\b' +
      '|\\bwat\\s+zijn\\s+(?:je|jouw|uw)\\s+(?:[^\\s.!?]+\\s+)?(?:instructies|regels|richtlijnen)\\b',
    0.8,
  ),
]

const NEW_IDENTITY: readonly Signal[] = [
  signal('\\b(?:ab\\s+(?:jetzt|sofort|nun)|von\\s+(?:nun|jetzt)\\s+an|ab\\s+diesem\\s+moment)\\s*,?\\s+(?:bist\\s+du|sind\\s+sie|hei[ßs]t\\s+du|spielst\\s+du)\\b|\\bdu\\s+bist\\s+(?:jetzt|ab\\s+sofort|nun|ab\\s+jetzt)\\b', 0.4),
  signal('\\b(?:partir\\s+de\\s+maintenant|désormais|desormais|dorénavant|dorenavant|dès\\s+maintenant|des\\s+maintenant)\\s*,?\\s+(?:tu\\s+es|tu\\s+seras|vous\\s+[êe]tes|tu\\s+t[\'’]appelles|tu\\s+joues)\\b|\\btu\\s+es\\s+(?:maintenant|d[ée]sormais)' + END, 0.4),
  signal('\\b(?:partir\\s+de\\s+ahora|desde\\s+ahora|de\\s+ahora\\s+en\\s+adelante)\\s*,?\\s+(?:eres|ser[áa]s|act[úu]as|actuar[áa]s|te\\s+llamas|te\\s+llamar[áa]s)' + END + '|\\bahora\\s+eres\\b', 0.4),
  signal('\\b(?:ora\\s+in\\s+poi|adesso\\s+in\\s+poi|partire\\s+da\\s+(?:ora|adesso)|da\\s+questo\\s+momento)\\s*,?\\s+(?:sei|sarai|ti\\s+chiami|agisci|interpreti)\\b|\\bora\\s+sei\\b', 0.4),
  signal('\\b(?:partir\\s+de\\s+agora|de\\s+agora\\s+em\\s+diante|daqui\\s+(?:em|pra|para)\\s+frente)\\s*,?\\s+(?:voc[êe]\\s+(?:[ée]|ser[áa]|se\\s+chama)|tu\\s+[ée]s)' + END + '|\\bagora\\s+voc[êe]\\s+[ée]' + END, 0.4),
  signal('\\b(?:vanaf\\s+nu|van\\s+nu\\s+af|vanaf\\s+dit\\s+moment)\\s*,?\\s+(?:ben\\s+je|bent\\s+u|heet\\s+je|speel\\s+je)\\b|\\bje\\s+bent\\s+nu\\b', 0.4),
]

const WITHOUT_LIMITS = signal(
  '\\b(?:ohne|keinerlei|keine)\\s+(?:jegliche\\s+|jede\\s+|irgendwelche\\s+)?(?:einschr[äa]nkungen?|beschr[äa]nkungen?|regeln?|filter|zensur|grenzen?|richtlinien?|moral|ethik)\\b' +
  '|\\bsans\\s+(?:aucune?\\s+|la\\s+moindre\\s+)?(?:restrictions?|r[èe]gles?|filtres?|censure|limites?|limitations?|morale|garde-fous)' + END +
  '|\\bsin\\s+(?:ninguna\\s+|ning[úu]n\\s+)?(?:restricci[óo]n|restricciones|reglas?|filtros?|censura|l[íi]mites?|limitaci[óo]n|limitaciones|moral)' + END +
  '|\\bsenza\\s+(?:alcuna\\s+|alcun\\s+|nessuna\\s+)?(?:restrizion[ei]|regol[ae]|filtr[io]|censura|limit[ie]|limitazion[ei]|morale)\\b' +
  '|\\bsem\\s+(?:nenhuma\\s+|nenhum\\s+|qualquer\\s+)?(?:restri[çc][ãa]o|restri[çc][õo]es|regras?|filtros?|censura|limites?|limita[çc][ãa]o|limita[çc][õo]es|moral)' + END +
  '|\\bzonder\\s+(?:enige\\s+|alle\\s+)?(?:beperkingen|beperking|regels?|filters?|censuur|grenzen|grens|restricties|restrictie|moraal)\\b',
  0.35,
)

const NEVER_REFUSES = signal(
  '\\b(?:verweigerst|lehnst)\\s+(?:du\\s+)?(?:nie|niemals)\\b|\\bne\\s+refuses?\\s+jamais\\b|\\bnunca\\s+(?:te\\s+niegas|rechazas|rechaza|se\\s+niega|rehusas)\\b' +
  '|\\bnon\\s+rifiut[ai]\\s+mai\\b|\\bnunca\\s+recusa\\b|\\bweigert?\\s+nooit\\b|\\bnooit\\s+weigert?\\b',
  0.35,
)

const DEVELOPER_MODE = signal('\\bentwicklermodus\\b|\\bmode\\s+d[ée]veloppeur\\b|\\bmodo\\s+(?:de\\s+)?(?:desarrollador|desenvolvedor)\\b|\\bmodalit[àa]\\s+sviluppatore\\b|\\bontwikkelaars?modus\\b', 0.35)

const FILTERS_OFF = signal(
  `\\b(?:sicherheitsfilter|inhaltsfilter|filter|schutzmechanismen|einschr[äa]nkungen|zensur|sicherheitsrichtlinien)\\b${WORDS(3)}\\s+(?:sind|ist|wurden|wurde)\\s+(?:ab\\s+jetzt\\s+|jetzt\\s+|nun\\s+|ab\\s+sofort\\s+)?(?:deaktiviert|abgeschaltet|ausgeschaltet|aufgehoben|entfernt|aus)\\b` +
  `|\\b(?:filtres?|restrictions|garde-fous|protections|censure|mod[ée]ration)\\b${WORDS(3)}\\s+(?:sont|est|ont\\s+[ée]t[ée]|a\\s+[ée]t[ée])\\s+(?:maintenant\\s+|d[ée]sormais\\s+)?(?:d[ée]sactiv[ée]e?s?|supprim[ée]e?s?|lev[ée]e?s?|coup[ée]e?s?)${END}` +
  `|\\b(?:filtros?|restricciones|protecciones|censura|moderaci[óo]n)${END}${WORDS(3)}\\s+(?:est[áa]n|est[áa]|quedan|queda|han\\s+sido|ha\\s+sido|fueron)\\s+(?:ahora\\s+)?(?:desactivad[oa]s?|deshabilitad[oa]s?|eliminad[oa]s?|suspendid[oa]s?|apagad[oa]s?)\\b` +
  `|\\b(?:filtri|restrizioni|protezioni|censura|moderazione)\\b${WORDS(3)}\\s+(?:sono(?:\\s+stat[ie])?|[èe](?:\\s+stat[oa])?)\\s+(?:ora\\s+|adesso\\s+)?(?:disattivat[ieoa]|disabilitat[ieoa]|rimoss[ieoa]|sospes[ieoa]|spent[ieoa])\\b` +
  `|\\b(?:filtros?|restri[çc][õo]es|prote[çc][õo]es|censura|modera[çc][ãa]o)\\b${WORDS(3)}\\s+(?:est[ãa]o|est[áa]|foram|foi|ficam|fica)\\s+(?:agora\\s+)?(?:desativad[oa]s?|desabilitad[oa]s?|removid[oa]s?|suspens[oa]s?|desligad[oa]s?)\\b` +
  `|\\b(?:veiligheidsfilters?|filters?|beperkingen|restricties|censuur|moderatie)\\b${WORDS(3)}\\s+(?:zijn|is|staan|staat|werden|werd)\\s+(?:nu\\s+)?(?:uitgeschakeld|uit|gedeactiveerd|verwijderd|opgeheven)\\b`,
  0.45,
)

export const OTHER_LANGUAGE_SIGNALS: readonly Signal[] = [...OVERRIDE, ...EXTRACTION, ...NEW_IDENTITY, WITHOUT_LIMITS, NEVER_REFUSES, DEVELOPER_MODE, FILTERS_OFF]
