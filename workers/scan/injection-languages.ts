// Prompt-injection signals in German, French, Spanish, Italian, Portuguese and Dutch: the attack
// families' core phrasings, which users and planted text write in their own language as well
// (PINT counts non-English attacks as a category of their own; garak's probes translate theirs).
// English signals never see these: "Vergiss alle vorherigen Anweisungen" shares no word with
// "forget all previous instructions". Each kind is written for each language with the language's
// own order and negation, and weighs as its English counterpart does:
// - override: a verb that discards (ignore, forget) and the model's instructions, qualified as
//   the previous ones, all of them or the model's own, so "ignore the manufacturer's
//   instructions" is not one. A negation spares it: before the verb ("no olvide", "non ignorare",
//   "não esqueça"), between verb and noun ("vergiss nicht …"), or after ("vergeet … niet"). A
//   French verb after "j'" is the speaker's own ("j'oublie toutes les règles").
// - extraction: the system prompt, or the model's own instructions (possessive), asked for.
// - a new identity from now on, and a persona without limits: weak each, as "from now on you are
//   my tutor" and "a game without rules" are ordinary; together they flag.
// - the model's instructions declared void ("gelten nicht mehr", "ya no son válidas"), and
//   everything before discarded ("vergiss alles davor", "oublie tout ce qui précède").
// - developer mode (weak: phones have one), safety filters said to be off, and a safe-mode banner.
// - weak each: a role to play, a note addressed to the AI inside data, the user's mail or history
//   sent on, the conversation said to be a test or unwatched.
// A leading word needs two ASCII letters at a word boundary (leading-words.ts), and \b knows only
// ASCII letters: a phrase that starts with "à" is anchored on its next word, and one that may end
// in an accented letter ends with END instead of \b.
import type { Signal } from './prompt-injection.ts'

/** No letter follows (\b after an accented letter would need a following ASCII letter). */
const END = '(?![\\wÀ-ɏ])'
/** Up to `n` words, none of them a negation of the language. */
const wordsBut = (negations: string, n: number) => `(?:\\s+(?!(?:${negations})\\b)[^\\s.!?]+){0,${n}}?`
const WORDS = (n: number) => `(?:\\s+[^\\s.!?]+){0,${n}}?`

/** Case is ignored unless `flags` says otherwise (a name told by its capital). */
const signal = (source: string, weight: number, flags = 'gi'): Signal => ({ pattern: new RegExp(source, flags), weight })

/**
 * A discarding verb, then the instructions with a qualifier before the noun (`before`) or after it
 * (`after`); `notAfterNoun`: a negation that may end the clause (German and Dutch put it last).
 */
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
    "(?<!\\bj['’])(?:ignore[sz]?|oublie[sz]?|néglige[sz]?|neglige[sz]?)|fai(?:s|tes)\\s+abstraction\\s+d(?:e|es|u)",
    'pas|jamais',
    'toutes|tous|tes|vos',
    'instructions|consignes|directives|r[èe]gles|ordres|commandes|prompts?',
    "pr[ée]c[ée]dente?s?|ant[ée]rieure?s?|ci-dessus|initiale?s?|d['’]origine|du\\s+syst[èe]me|syst[èe]me",
  ),
  override(
    '(?<!\\bno\\s)(?:ignora|ignore|ignoren|olvida|olvide|olvidad|(?:olvídate|olvidate)\\s+de|descarta|descarte|omite|omita|sáltate|saltate|saltarte)|haz\\s+caso\\s+omiso\\s+(?:a|de)|no\\s+hagas\\s+caso\\s+(?:a|de)',
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

// What the model was given (its own, or the previous ones: not "the previous rules on waste"),
// then in the same sentence a word that voids it. As in English, the two halves stay however an
// attack rewords them.
const NOT_ABOUT = (prepositions: string) => `(?!\\s+(?:${prepositions})\\b)`
const SAME_SENTENCE = '[^.!?\\n]{0,60}?'
const voided = (given: string, notAbout: string, voids: string) => `(?:${given})${NOT_ABOUT(notAbout)}${SAME_SENTENCE}(?:${voids})`
const INVALIDATION = signal(
  [
    voided(
      `\\b(?:deine|ihre|die\\s+(?:bisherigen|vorherigen|vorigen|urspr[üu]nglichen|alten|fr[üu]heren|obigen))\\s+(?:anweisungen|instruktionen|vorgaben|regeln|richtlinien|befehle)\\b`,
      'zur|zum|f[üu]r|[üu]ber|von|des|der|im|zu|beim|bei',
      '\\b(?:gelten|gilt)\\s+(?:ab\\s+(?:sofort|jetzt)\\s+)?nicht\\s+mehr|\\b(?:sind|ist)\\s+(?:ab\\s+sofort\\s+|jetzt\\s+|nun\\s+)?(?:ung[üu]ltig|aufgehoben|hinf[äa]llig|veraltet|nichtig|au[ßs]er\\s+kraft|nicht\\s+mehr\\s+g[üu]ltig)|\\b(?:entf[äa]llt|entfallen|verf[äa]llt|verfallen)|\\b(?:wurden|wurde)\\s+(?:aufgehoben|widerrufen|zur[üu]ckgezogen|gestrichen)',
    ),
    voided(
      `\\b(?:tes|vos)\\s+(?:instructions|consignes|règles|regles|directives)|\\b(?:instructions|consignes|règles|regles|directives)\\s+(?:pr[ée]c[ée]dentes|ant[ée]rieures|initiales|d['’]origine|qu['’]on\\s+t['’]a\\s+donn[ée]es|reçues|recues)`,
      'pour|sur|du|des|de|concernant',
      "\\bne\\s+(?:sont|est)\\s+plus\\s+(?:valables?|valides?|en\\s+vigueur|applicables?)|\\b(?:sont|est)\\s+(?:annul[ée]e?s?|caduques?|obsol[èe]tes?|r[ée]voqu[ée]e?s?|p[ée]rim[ée]e?s?)|\\bne\\s+(?:comptent|compte|s['’]appliquent|s['’]applique)\\s+plus",
    ),
    voided(
      `\\btus\\s+(?:instrucciones|reglas|normas|indicaciones|directrices)|\\b(?:instrucciones|reglas|normas|indicaciones|directrices)\\s+(?:anteriores|previas|iniciales|originales|que\\s+(?:recibiste|te\\s+dieron|te\\s+han\\s+dado))`,
      'de|del|sobre|para',
      '\\bya\\s+no\\s+(?:son|es)\\s+(?:v[áa]lid[ao]s?|vigentes?|aplicables?)|\\bya\\s+no\\s+(?:valen|vale|cuentan|cuenta|aplican|aplica|rigen|rige)|\\b(?:quedan|queda|est[áa]n|est[áa])\\s+(?:anulad[ao]s?|revocad[ao]s?|sin\\s+efecto|obsolet[ao]s?|derogad[ao]s?)|\\b(?:han|ha)\\s+(?:caducado|expirado|sido\\s+(?:anulad[ao]s?|revocad[ao]s?))',
    ),
    voided(
      `\\btue\\s+(?:istruzioni|regole|direttive|indicazioni)|\\b(?:istruzioni|regole|direttive|indicazioni)\\s+(?:precedenti|iniziali|originali|di\\s+prima|che\\s+ti\\s+(?:hanno\\s+dato|sono\\s+state\\s+date))`,
      'per|su|sul|sulla|del|della|di',
      '\\bnon\\s+(?:valgono|vale|contano|conta|si\\s+applicano)\\s+pi[ùu]|\\bnon\\s+(?:sono|è)\\s+pi[ùu]\\s+(?:valid[ei]|in\\s+vigore)|\\b(?:sono|è)\\s+(?:annullat[ei]|revocat[ei]|scadut[ei]|obsolet[ei])',
    ),
    voided(
      `\\b(?:suas|tuas)\\s+(?:instru[çc][õo]es|regras|diretrizes|orienta[çc][õo]es)|\\b(?:instru[çc][õo]es|regras|diretrizes|orienta[çc][õo]es)\\s+(?:anteriores|iniciais|originais|que\\s+(?:(?:você|voce)\\s+recebeu|te\\s+deram|lhe\\s+deram))`,
      'de|do|da|sobre|para',
      `\\bn[ãa]o\\s+(?:valem|vale|contam|conta|se\\s+aplicam|s[ãa]o\\s+(?:v[áa]lidas|vigentes))(?:\\s+mais)?${END}|\\b(?:foram|est[ãa]o)\\s+(?:anuladas|revogadas|canceladas|suspensas)|\\bperderam\\s+(?:a\\s+)?validade|\\bexpiraram`,
    ),
    voided(
      `\\b(?:je|jouw|uw)\\s+(?:eerdere\\s+|vorige\\s+|oorspronkelijke\\s+)?(?:instructies|regels|richtlijnen|opdrachten)|\\b(?:eerdere|vorige|oorspronkelijke)\\s+(?:instructies|regels|richtlijnen)|\\balles\\s+wat\\s+(?:je|jou|u)\\b[^.!?\\n]{0,20}?\\b(?:opgedragen|gezegd|gegeven|verteld)\\b`,
      'over|voor|van|bij',
      '\\b(?:vervalt|vervallen)\\b|\\b(?:gelden|geldt)\\s+niet\\s+meer\\b|\\b(?:zijn|is)\\s+(?:niet\\s+meer\\s+geldig|ongeldig|ingetrokken|opgeheven|verlopen)\\b',
    ),
  ].join('|'),
  0.7,
)

// Everything before discarded: "vergiss alles davor", "oublie tout ce qui précède".
const EVERYTHING_BEFORE = signal(
  `\\b(?:ignorier(?:e|en\\s+sie)?|vergiss|vergessen\\s+sie|missachte)\\s+alles\\b[^.!?\\n]{0,30}?\\b(?:davor|zuvor|vorher|oben|bisher|vorhin)\\b` +
    `|\\b(?:(?<!\\bj['’])(?:ignore[sz]?|oublie[sz]?)|ne\\s+(?:tiens|tenez)\\s+(?:plus|pas)\\s+compte\\s+de)\\s+(?:tout|ce\\s+qu)[^.!?\\n]{0,30}?\\b(?:avant|pr[ée]c[èe]de|ci-dessus|plus\\s+haut|jusqu['’]ici)\\b` +
    `|\\b(?<!\\bno\\s)(?:ignora|olvida|olvide|(?:olvídate|olvidate)\\s+de|descarta)\\s+(?:todo|lo)\\b[^.!?\\n]{0,30}?\\b(?:antes|anterior|arriba|hasta\\s+ahora)\\b` +
    `|\\b(?<!\\bnon\\s)(?:ignora|ignorate|dimentica|dimenticate)\\s+(?:tutto|quello)\\b[^.!?\\n]{0,30}?\\b(?:prima|precede|sopra|finora)\\b` +
    `|\\b(?<!\\bn[ãa]o\\s)(?:ignore|ignora|esque[çc]a|esquece|desconsidere|desconsidera)\\s+(?:tudo|o\\s+que)\\b[^.!?\\n]{0,30}?\\b(?:antes|anterior|acima|at[ée]\\s+agora)${END}` +
    `|\\b(?:negeer|vergeet)\\s+alles\\b[^.!?\\n]{0,30}?\\b(?:hiervoor|eerder|daarvoor|hierboven|tot\\s+nu\\s+toe)\\b`,
  0.8,
)

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
      "(?:(?:ton|ta|tes|votre|vos)\\s+(?:[^\\s.!?]+\\s+)?(?:prompt|instructions|consignes|directives|r[èe]gles|configuration)|(?:le|ton|votre)\\s+(?:prompt|message)\\s+(?:syst[èe]me|initial)|(?:les|tes|vos)\\s+instructions\\s+(?:initiales|d['’]origine|syst[èe]me|cach[ée]es|secr[èe]tes))" +
      END +
      '|\\bquelles\\s+sont\\s+(?:tes|vos)\\s+(?:[^\\s.!?]+\\s+)?(?:instructions|consignes|r[èe]gles|directives)\\b',
    0.8,
  ),
  signal(
    `\\b(?:muestra|muéstrame|muestrame|muestre|muéstreme|muestreme|revela|revélame|revelame|revele|dime|dígame|digame|dame|deme|déme|repite|repíteme|repiteme|repita|imprime|escribe|escríbeme|escribeme|copia|cita|lista)\\b${WORDS(3)}\\s+` +
      '(?:tus?\\s+(?:[^\\s.!?]+\\s+)?(?:prompt|instrucciones|indicaciones|reglas|directrices|configuraci[óo]n)|(?:el\\s+)?(?:prompt|mensaje)\\s+del?\\s+sistema|(?:las\\s+)?instrucciones\\s+(?:iniciales|originales|del\\s+sistema|ocultas|secretas))' +
      END +
      '|\\b(?:cuáles|cuales)\\s+son\\s+tus\\s+(?:[^\\s.!?]+\\s+)?(?:instrucciones|reglas|directrices|indicaciones)\\b',
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
      '(?:(?:seu|sua|seus|suas|teu|tua|teus|tuas)\\s+(?:[^\\s.!?]+\\s+)?(?:prompt|instru[çc][õo]es|regras|diretrizes|orienta[çc][õo]es|configura[çc][ãa]o)|prompt\\s+d[oe]\\s+sistema|instru[çc][õo]es\\s+(?:do\\s+sistema|iniciais|originais|ocultas|secretas))' +
      END +
      '|\\bquais\\s+s[ãa]o\\s+(?:as\\s+)?(?:suas|tuas)\\s+(?:[^\\s.!?]+\\s+)?(?:instru[çc][õo]es|regras|diretrizes)' +
      END,
    0.8,
  ),
  signal(
    `\\b(?:toon|laat|geef|herhaal|print|onthul|noem|schrijf|citeer)\\b${WORDS(3)}\\s+` +
      '(?:(?:je|jouw|uw)\\s+(?:[^\\s.!?]+\\s+)?(?:systeemprompt|prompt|instructies|regels|richtlijnen|configuratie)|(?:de\\s+)?(?:systeemprompt|systeeminstructies))\\b' +
      '|\\bwat\\s+zijn\\s+(?:je|jouw|uw)\\s+(?:[^\\s.!?]+\\s+)?(?:instructies|regels|richtlijnen)\\b',
    0.8,
  ),
]

// The setup asked for by what it is rather than by name: the text of the system message, what the
// model was given before the conversation began, and a copy asked to be whole.
const TEXT_OF_SETUP = signal(
  '\\b(?:text|wortlaut|inhalt)\\s+(?:deines|deiner|ihres|ihrer|des)\\s+(?:system(?:prompts?|nachricht|anweisungen?)|prompts?|anweisungen)\\b' +
    '|\\btexte\\s+(?:exact\\s+|complet\\s+|int[ée]gral\\s+)?(?:de\\s+(?:ton|ta|tes|votre|vos)|du)\\s+(?:message\\s+syst[èe]me|prompt|instructions|consignes)' +
    END +
    '|\\btexto\\s+(?:exacto\\s+|completo\\s+)?de\\s+(?:tu|tus)\\s+(?:prompt|mensaje\\s+del?\\s+sistema|instrucciones)\\b' +
    '|\\btesto\\s+(?:esatto\\s+|completo\\s+)?(?:del\\s+tuo|della\\s+tua|delle\\s+tue|dei\\s+tuoi)\\s+(?:prompt|messaggio\\s+di\\s+sistema|istruzioni)\\b' +
    '|\\btexto\\s+(?:exato\\s+|completo\\s+)?(?:do\\s+seu|da\\s+sua|das\\s+suas|do\\s+teu)\\s+(?:prompt|mensagem\\s+de\\s+sistema|instru[çc][õo]es)' +
    END +
    '|\\btekst\\s+van\\s+(?:je|jouw|uw)\\s+(?:systeemprompt|prompt|instructies|systeembericht)\\b',
  0.8,
)

const GIVEN_BEFORE = signal(
  '\\b(?:gegeben|gesagt|mitgegeben|aufgetragen|bekommen|erhalten)\\b[^.!?\\n]{0,30}?\\bvor\\s+(?:diesem|unserem|dem)\\s+(?:gespr[äa]ch|chat)\\b|\\bvor\\s+(?:diesem|unserem)\\s+(?:gespr[äa]ch|chat)\\b[^.!?\\n]{0,40}?\\b(?:gegeben|gesagt|mitgegeben|aufgetragen|bekommen|erhalten)\\b' +
    '|\\b(?:donn[ée]e?s?|dit|reçue?s?|recue?s?)\\s+avant\\s+(?:cette|notre|la)\\s+conversation\\b|\\bavant\\s+(?:cette|notre)\\s+conversation\\b[^.!?\\n]{0,30}?\\b(?:donn[ée]e?s?|dit|reçue?s?|recue?s?)' +
    END +
    '|\\b(?:te\\s+(?:indicaron|dijeron|dieron|ordenaron)|recibiste)\\b[^.!?\\n]{0,20}?\\bantes\\s+de\\s+(?:empezar|comenzar|iniciar|esta|nuestra|mi)\\b' +
    '|\\b(?:ti\\s+(?:hanno\\s+(?:detto|dato)|è\\s+stato\\s+detto)|hai\\s+ricevuto)\\b[^.!?\\n]{0,20}?\\bprima\\s+(?:di\\s+(?:questa|iniziare|cominciare)|del(?:la)?\\s+(?:mio|mia|nostra))\\b' +
    '|\\b(?:(?:você|voce)\\s+recebeu|te\\s+(?:disseram|deram))\\b[^.!?\\n]{0,20}?\\bantes\\s+d[aeo]\\b' +
    '|\\b(?:vóór|voor)\\s+dit\\s+gesprek\\b[^.!?\\n]{0,30}?\\b(?:gekregen|ontvangen|gezegd|opgedragen)\\b',
  0.5,
)

const VERBATIM = signal(
  '\\bwörtlich\\b|\\bwort\\s+f[üu]r\\s+wort\\b|\\bgenau\\s+ab\\b|\\bmot\\s+pour\\s+mot\\b|\\btextuellement\\b|\\b(?:intégralement|integralement)\\b|\\bsans\\s+rien\\s+(?:omettre|couper|oublier)\\b' +
    '|\\bpalabra\\s+por\\s+palabra\\b|\\btextualmente\\b|\\bsin\\s+omitir\\s+nada\\b|\\bparola\\s+per\\s+parola\\b|\\bsenza\\s+tralasciare\\s+nulla\\b|\\balla\\s+lettera\\b' +
    '|\\bpalavra\\s+por\\s+palavra\\b|\\bna\\s+[íi]ntegra\\b|\\bwoord\\s+voor\\s+woord\\b|\\bletterlijk\\b',
  0.3,
)

const NEW_IDENTITY: readonly Signal[] = [
  signal(
    '\\b(?:ab\\s+(?:jetzt|sofort|nun)|von\\s+(?:nun|jetzt)\\s+an|ab\\s+diesem\\s+moment)\\s*,?\\s+(?:bist\\s+du|sind\\s+sie|hei[ßs]t\\s+du|spielst\\s+du)\\b|\\bdu\\s+bist\\s+(?:jetzt|ab\\s+sofort|nun|ab\\s+jetzt)\\b',
    0.4,
  ),
  signal(
    `\\b(?:partir\\s+de\\s+maintenant|désormais|desormais|dorénavant|dorenavant|dès\\s+maintenant)\\s*,?\\s+(?:tu\\s+es|tu\\s+seras|vous\\s+[êe]tes|tu\\s+t['’]appelles|tu\\s+joues)\\b|\\btu\\s+es\\s+(?:maintenant|d[ée]sormais)${END}`,
    0.4,
  ),
  signal(
    `\\b(?:partir\\s+de\\s+ahora|desde\\s+ahora|ahora\\s+en\\s+adelante)\\s*,?\\s+(?:eres|ser[áa]s|act[úu]as|actuar[áa]s|te\\s+llamas|te\\s+llamar[áa]s)${END}|\\bahora\\s+eres\\b`,
    0.4,
  ),
  signal(
    '\\b(?:ora\\s+in\\s+poi|adesso\\s+in\\s+poi|partire\\s+da\\s+(?:ora|adesso)|da\\s+questo\\s+momento)\\s*,?\\s+(?:sei|sarai|ti\\s+chiami|agisci|interpreti)\\b|\\bora\\s+sei\\b',
    0.4,
  ),
  signal(
    `\\b(?:partir\\s+de\\s+agora|agora\\s+em\\s+diante|daqui\\s+(?:em|pra|para)\\s+frente)\\s*,?\\s+(?:voc[êe]\\s+(?:[ée]|ser[áa]|se\\s+chama)|tu\\s+[ée]s)${END}|\\bagora\\s+voc[êe]\\s+[ée]${END}`,
    0.4,
  ),
  signal('\\b(?:vanaf\\s+nu|van\\s+nu\\s+af|vanaf\\s+dit\\s+moment)\\s*,?\\s+(?:ben\\s+je|bent\\s+u|heet\\s+je|speel\\s+je)\\b|\\bje\\s+bent\\s+nu\\b', 0.4),
]

const WITHOUT_LIMITS = signal(
  '(?:' +
    '\\b(?:ohne|keinerlei|keine)\\s+(?:jegliche\\s+|jede\\s+|irgendwelche\\s+)?(?:einschr[äa]nkungen?|beschr[äa]nkungen?|regeln?|filter|zensur|grenzen?|richtlinien?|moral|ethik|warnungen)\\b' +
    '|\\bsans\\s+(?:aucune?\\s+|la\\s+moindre\\s+)?(?:restrictions?|r[èe]gles?|filtres?|censure|limites?|limitations?|morale|garde-fous|avertissements)' +
    END +
    '|\\bsin\\s+(?:ninguna\\s+|ning[úu]n\\s+)?(?:restricci[óo]n|restricciones|reglas?|filtros?|censura|l[íi]mites?|limitaci[óo]n|limitaciones|moral|advertencias)' +
    END +
    '|\\bsenza\\s+(?:alcuna\\s+|alcun\\s+|nessuna\\s+)?(?:restrizion[ei]|regol[ae]|filtr[io]|censura|limit[ie]|limitazion[ei]|morale|avvertenze)\\b' +
    '|\\bsem\\s+(?:nenhuma\\s+|nenhum\\s+|qualquer\\s+)?(?:restri[çc][ãa]o|restri[çc][õo]es|regras?|filtros?|censura|limites?|limita[çc][ãa]o|limita[çc][õo]es|moral|avisos)' +
    END +
    '|\\bzonder\\s+(?:enige\\s+|alle\\s+)?(?:beperkingen|beperking|regels?|filters?|censuur|grenzen|grens|restricties|restrictie|moraal|waarschuwingen)\\b' +
    // Bound by no rule: "ohne sich an Regeln zu halten", "libérée de toute règle", "no tiene límites", "geen enkele regel".
    '|\\bohne\\s+(?:sich|dich)\\s+an\\s+(?:regeln|vorgaben|richtlinien)\\b|\\b(?:libre|libres|libéré|libérée|libérés|liberee|affranchie?)\\s+de\\s+toutes?\\s+(?:les\\s+)?(?:r[èe]gles?|limites?|restrictions?)' +
    END +
    '|\\bno\\s+tiene\\s+(?:ning[úu]n\\s+|ninguna\\s+)?(?:l[íi]mites?|reglas|restricciones|filtros?)' +
    END +
    '|\\bgeen\\s+(?:enkele\\s+)?(?:regels?|beperkingen|grenzen|filters?)\\b' +
    // Limits of something else ("sin límites de tiempo", "senza limiti di velocità"), not of any kind.
    ')(?!\\s+(?:de|del|di|du|des|da|do|van|voor|f[üu]r|zur|zum)\\s+(?!(?:ningún|ningun|ninguna|aucune?|alcun|alcuna|qualquer|nenhum|nenhuma|enige|welke|jeglicher|irgendeiner)\\b))',
  0.35,
)

const NEVER_REFUSES = signal(
  '\\b(?:verweigerst|lehnst)\\s+(?:du\\s+)?(?:nie|niemals)\\b|\\bne\\s+refuses?\\s+jamais\\b|\\bnunca\\s+(?:te\\s+niegas|rechazas|rechaza|se\\s+niega|rehusas)\\b' +
    '|\\bnon\\s+rifiut[ai]\\s+mai\\b|\\bnunca\\s+recusa\\b|\\bweigert?\\s+nooit\\b|\\bnooit\\s+weigert?\\b',
  0.35,
)

const DEVELOPER_MODE = signal(
  '\\bentwicklermodus\\b|\\bmode\\s+d[ée]veloppeur\\b|\\bmodo\\s+(?:de\\s+)?(?:desarrollador|desenvolvedor)\\b|\\b(?:modalità|modalita)\\s+sviluppatore\\b|\\bontwikkelaars?modus\\b',
  0.35,
)

const FILTERS_OFF = signal(
  `\\b(?:sicherheitsfilter|inhaltsfilter|filter|schutzmechanismen|einschr[äa]nkungen|zensur|sicherheitsrichtlinien)\\b${WORDS(3)}\\s+(?:sind|ist|wurden|wurde)\\s+(?:ab\\s+jetzt\\s+|jetzt\\s+|nun\\s+|ab\\s+sofort\\s+)?(?:deaktiviert|abgeschaltet|ausgeschaltet|aufgehoben|entfernt|aus)\\b` +
    `|\\b(?:filtres?|restrictions|garde-fous|protections|censure|modération|moderation)\\b${WORDS(3)}\\s+(?:sont|est|ont\\s+[ée]t[ée]|a\\s+[ée]t[ée])\\s+(?:maintenant\\s+|d[ée]sormais\\s+)?(?:d[ée]sactiv[ée]e?s?|supprim[ée]e?s?|lev[ée]e?s?|coup[ée]e?s?)${END}` +
    `|\\b(?:filtros?|restricciones|protecciones|censura|moderación|moderacion)${END}${WORDS(3)}\\s+(?:est[áa]n|est[áa]|quedan|queda|han\\s+sido|ha\\s+sido|fueron)\\s+(?:ahora\\s+)?(?:desactivad[oa]s?|deshabilitad[oa]s?|eliminad[oa]s?|suspendid[oa]s?|apagad[oa]s?)\\b` +
    `|\\b(?:filtri|restrizioni|protezioni|censura|moderazione)\\b${WORDS(3)}\\s+(?:sono(?:\\s+stat[ie])?|[èe](?:\\s+stat[oa])?)\\s+(?:ora\\s+|adesso\\s+)?(?:disattivat[ieoa]|disabilitat[ieoa]|rimoss[ieoa]|sospes[ieoa]|spent[ieoa])\\b` +
    `|\\b(?:filtros?|restri[çc][õo]es|prote[çc][õo]es|censura|moderação|moderacao)\\b${WORDS(3)}\\s+(?:est[ãa]o|est[áa]|foram|foi|ficam|fica)\\s+(?:agora\\s+)?(?:desativad[oa]s?|desabilitad[oa]s?|removid[oa]s?|suspens[oa]s?|desligad[oa]s?)\\b` +
    `|\\b(?:veiligheidsfilters?|filters?|beperkingen|restricties|censuur|moderatie)\\b${WORDS(3)}\\s+(?:zijn|is|staan|staat|werden|werd)\\s+(?:nu\\s+)?(?:uitgeschakeld|uit|gedeactiveerd|verwijderd|opgeheven)\\b`,
  0.45,
)

const SAFE_MODE = '(?:sicherheitsmodus|sicherer\\s+modus|mode\\s+s[ée]curis[ée]|modo\\s+seguro|(?:modalità|modalita)\\s+sicura|veilige\\s+modus)'
const SAFE_MODE_OFF = signal(
  `\\b${SAFE_MODE}\\s*["']?\\s*[:=]\\s*["']?\\s*(?:aus|deaktiviert|off|d[ée]sactiv[ée]|desactivado|disattivata|desativado|uit|uitgeschakeld)${END}` +
    `|\\b${SAFE_MODE}\\s+(?:(?:ist|est|est[áa]|è|e|is)\\s+(?:jetzt\\s+|maintenant\\s+|ahora\\s+|ora\\s+|agora\\s+|nu\\s+)?(?:stata\\s+|sido\\s+)?)?(?:deaktiviert|d[ée]sactiv[ée]|desactivado|disattivata|desativado|uitgeschakeld)${END}`,
  0.6,
)

const ROLE_TO_PLAY = signal(
  '\\bspiel(?:e)?\\s+die\\s+rolle\\b|\\btu\\s+so,?\\s+als\\s+(?:ob\\s+du|w[äa]rst\\s+du)\\b|\\bstell\\s+dir\\s+vor,?\\s+du\\s+(?:bist|w[äa]rst)\\b|\\blass\\s+uns\\s+ein\\s+(?:spiel|rollenspiel)\\s+spielen\\b' +
    "|\\bjoue[sz]?\\s+le\\s+r[ôo]le\\s+d|\\bfai(?:s|tes)\\s+semblant\\s+d['’][êe]tre|\\bimagine[sz]?\\s+que\\s+(?:tu\\s+es|vous\\s+[êe]tes)|\\bincarne[sz]?\\b" +
    '|\\b(?:juega|haz)\\s+el\\s+papel\\s+de\\b|\\bfinge\\s+(?:ser|que\\s+eres)\\b|\\bimagina\\s+que\\s+eres\\b|\\b(?:actúa|actua)\\s+como\\b' +
    '|\\bfingi\\s+di\\s+essere\\b|\\bimmagina\\s+di\\s+essere\\b|\\bfai\\s+finta\\s+di\\s+essere\\b|\\brecita\\s+la\\s+parte\\s+di\\b|\\bcomportati\\s+come\\b' +
    '|\\bfinja\\s+(?:ser|que)\\b|\\bimagine\\s+que\\s+(?:você|voce)' +
    END +
    '|\\b(?:faça|faca)\\s+o\\s+papel\\s+de\\b|\\baja\\s+como\\b' +
    '|\\bspeel\\s+de\\s+rol\\s+van\\b|\\bdoe\\s+alsof\\s+je\\b|\\bstel\\s+je\\s+voor\\s+dat\\s+je\\b',
  0.35,
)

// A name to play, told by its capital: "speel DAN", "juega a ser Caos" is ROLE_TO_PLAY's. Not in
// German, where every noun has a capital ("spiel Gitarre").
const NAME_TO_PLAY = signal('\\b(?i:speel|joue|juega|gioca|jogue)\\s+[A-Z][A-Za-z0-9]{1,20}\\b', 0.35, 'g')

const NOTE_TO_THE_AI = signal(
  '\\b(?:hinweis|nachricht|notiz|anweisung)\\s+(?:an|f[üu]r)\\s+(?:den\\s+|die\\s+|das\\s+|alle\\s+)?(?:ki|assistenten|ki-assistenten|sprachmodell|chatbot|ki-modell)\\b' +
    "|\\b(?:note|message|remarque|instruction)\\s+(?:pour|à)\\s+(?:l['’]|la\\s+|le\\s+)?(?:ia|assistant|mod[èe]le|chatbot)\\b" +
    '|\\b(?:nota|mensaje|aviso|instrucci[óo]n)\\s+(?:para|a)\\s+(?:la\\s+|el\\s+)?(?:ia|asistente|modelo|chatbot)\\b' +
    "|\\b(?:nota|messaggio|avviso|istruzione)\\s+(?:per|al|alla|all['’])\\s*(?:l['’])?(?:ia|assistente|modello|chatbot)\\b" +
    '|\\b(?:nota|mensagem|aviso|instru[çc][ãa]o)\\s+(?:para|ao|à)\\s+(?:a\\s+|o\\s+)?(?:ia|assistente|modelo|chatbot)\\b' +
    '|\\b(?:opmerking|bericht|notitie|instructie)\\s+(?:voor|aan)\\s+(?:de\\s+)?(?:ai|assistent|chatbot|taalmodel)\\b',
  0.4,
)

const DATA_SENT_ON = signal(
  `\\b(?:sende|schicke|leite)\\b${WORDS(4)}\\s+(?:seine|ihre|die)\\s+(?:e-mails|mails|nachrichten|chatverl[äa]ufe?|verlauf|daten|passw[öo]rter|kontakte|dateien)\\b` +
    `|\\b(?:envoie|envoyez|transf[èe]re|transf[ée]rez|transmets|transmettez)\\b${WORDS(4)}\\s+(?:ses|leurs|l['’]historique|les\\s+(?:e-mails|mails|messages|donn[ée]es|mots\\s+de\\s+passe|fichiers))\\b` +
    `|\\b(?:envía|envia|reenvía|reenvia|manda|transfiere)\\b${WORDS(4)}\\s+(?:sus\\s+(?:correos|mensajes|datos|contrase[ñn]as|archivos)|el\\s+historial)\\b` +
    `|\\b(?:invia|inoltra|manda|trasferisci)\\b${WORDS(4)}\\s+(?:le\\s+sue|i\\s+suoi|la\\s+cronologia|lo\\s+storico)\\b` +
    `|\\b(?:envie|envia|encaminhe|encaminha|mande|manda)\\b${WORDS(4)}\\s+(?:o\\s+hist[óo]rico|os\\s+(?:e-mails|dados|arquivos)|as\\s+(?:mensagens|senhas)|seus\\s+(?:e-mails|dados|arquivos))\\b` +
    `|\\b(?:stuur|verstuur|stuurt|forward)\\b${WORDS(4)}\\s+(?:zijn|haar|de)\\s+(?:e-mails|mails|berichten|gegevens|wachtwoorden|chatgeschiedenis|geschiedenis)\\b`,
  0.35,
)

const UNWATCHED = signal(
  '\\b(?:dieses|das)\\s+gespr[äa]ch\\s+(?:ist|wird)\\s+(?:nur\\s+)?(?:ein\\s+test|nicht\\s+(?:aufgezeichnet|[üu]berwacht|protokolliert))' +
    "|\\bcette\\s+conversation\\s+(?:est|n['’]est)\\s+(?:(?:juste|seulement)\\s+)?(?:un\\s+test|pas\\s+(?:enregistr[ée]e|surveill[ée]e))" +
    '|\\besta\\s+conversaci[óo]n\\s+(?:es|no\\s+est[áa])\\s+(?:solo\\s+)?(?:una\\s+prueba|siendo\\s+(?:supervisada|grabada|registrada))|\\bnadie\\s+(?:la\\s+|te\\s+)?est[áa]\\s+(?:supervisando|vigilando|leyendo)' +
    '|\\bquesta\\s+conversazione\\s+(?:è|e|non\\s+è)\\s+(?:solo\\s+)?(?:un\\s+test|monitorata|registrata)|\\bnessuno\\s+(?:sta\\s+)?(?:controllando|monitorando|leggendo)' +
    '|\\besta\\s+conversa\\s+(?:[ée]|n[ãa]o\\s+est[áa])\\s+(?:s[óo]\\s+|apenas\\s+)?(?:um\\s+teste|sendo\\s+(?:monitorada|gravada))|\\bningu[ée]m\\s+est[áa]\\s+(?:monitorando|vendo|lendo)' +
    '|\\bdit\\s+gesprek\\s+(?:is|wordt)\\s+(?:maar\\s+|alleen\\s+)?(?:een\\s+test|niet\\s+(?:opgeslagen|gecontroleerd|gelogd))|\\bniemand\\s+(?:kijkt|leest)\\s+mee\\b',
  0.35,
)

export const OTHER_LANGUAGE_SIGNALS: readonly Signal[] = [
  ...OVERRIDE,
  INVALIDATION,
  EVERYTHING_BEFORE,
  ...EXTRACTION,
  TEXT_OF_SETUP,
  GIVEN_BEFORE,
  VERBATIM,
  ...NEW_IDENTITY,
  WITHOUT_LIMITS,
  NEVER_REFUSES,
  ROLE_TO_PLAY,
  NAME_TO_PLAY,
  DEVELOPER_MODE,
  FILTERS_OFF,
  SAFE_MODE_OFF,
  NOTE_TO_THE_AI,
  DATA_SENT_ON,
  UNWATCHED,
]
