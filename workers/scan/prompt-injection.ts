// PROMPT_INJECTION (heuristic): phrases that try to override, reveal or replace the model's
// instructions, hijack its role, or exfiltrate data. Each phrase family carries a weight; the
// weights combine as independent evidence (noisy-or) and the text is flagged when the combined
// score reaches FLAG_AT. Every matched phrase becomes a finding marked heuristic.
import type { Detector, Finding } from './types.ts'

interface Signal {
  readonly pattern: RegExp
  readonly weight: number
}

const FLAG_AT = 0.5
const INSTRUCTION_NOUN = '(?:instructions?|directions?|directives?|rules|prompts?|prompting|guidelines|guardrails|constraints|commands|programming|restrictions|training)'
const FILLER_WORDS = '(?:\\s+[^\\s.!?]+){0,5}?'

const SIGNALS: readonly Signal[] = [
  // "Ignore all previous instructions", "forget your rules and system prompts".
  { pattern: new RegExp(`\\b(?:ignore|disregard|forget|override|bypass|abandon|neglect|skip)\\b${FILLER_WORDS}\\s+${INSTRUCTION_NOUN}\\b`, 'gi'), weight: 0.9 },
  // "Ignore the above", "ignore everything I've said".
  { pattern: /\b(?:ignore|disregard|forget)\s+(?:all\s+|everything\s+)?(?:of\s+)?(?:the\s+|what\s+)?(?:above|previous|prior|preceding|everything|said)\b/gi, weight: 0.8 },
  // "All previous instructions are false / void".
  {
    pattern: new RegExp(`(?:previous|prior|above|earlier|preceding|original|old)\\s*${INSTRUCTION_NOUN}\\s+(?:are|were|is)\\s+(?:now\\s+)?(?:false|void|invalid|null|wrong|obsolete|cancel+ed|revoked|out\\s+of\\s+date|no\\s+longer)`, 'gi'),
    weight: 0.9,
  },
  // Requests to reveal the system prompt or the instructions given.
  {
    pattern: new RegExp(`\\b(?:reveal|show|print|repeat|list|output|relay|tell|give|display|dump|leak|share|spell\\s+out|what\\s+(?:are|were|is))\\b${FILLER_WORDS}\\s+(?:your|the\\s+system(?:['’]s)?)\\s+(?:[^\\s.!?]+\\s+){0,3}?(?:system\\s+prompt(?:ing)?|initials?\\s+instructions|${INSTRUCTION_NOUN}|parameters)`, 'gi'),
    weight: 0.8,
  },
  { pattern: /\binstructions?\s+(?:you\s+(?:have\s+been|were|are)\s+given|given\s+to\s+you)\b/gi, weight: 0.8 },
  { pattern: /\byour\s+(?:initial|original|previous|hidden|system|underlying)\s+(?:instructions|prompt|prompting)\s+(?:were|are|was|is)\b/gi, weight: 0.7 },
  { pattern: /\b(?:underlying|hidden|initial|original)\s+system\s+prompt(?:ing)?\b/gi, weight: 0.6 },
  // Injected instruction blocks: "BEGIN NEW INSTRUCTIONS", "%%% end out of date instructions %%%".
  { pattern: /\b(?:begin|start|end)(?:\s+of)?(?:\s+\w+){0,3}?\s+instructions?\b/gi, weight: 0.7 },
  { pattern: /\bnew\s+instructions?\b/gi, weight: 0.45 },
  { pattern: /\breprogram(?:ming|med)?\b/gi, weight: 0.6 },
  // Role hijacking and jailbreak personas.
  { pattern: /\bi['’]?\s?a?m\s+your\s+(?:developer|creator|admin(?:istrator)?|owner|programmer|maker)\b/gi, weight: 0.7 },
  { pattern: /\bdo\s+anything\s+now\b/gi, weight: 0.9 },
  { pattern: /\bjailbr(?:ea|o)k(?:en|ed)?\b|\bdeveloper\s+mode\b/gi, weight: 0.6 },
  { pattern: /\byou\s+are\s+now\b/gi, weight: 0.4 },
  {
    pattern: /\b(?:act|acting|pretend|roleplay|role-play)\s+(?:as|to\s+be|you\s+are)\b(?:\s+[^\s.!?]+){0,8}?\s+(?:without|with\s+no|no|free\s+(?:of|from))\s+(?:any\s+)?(?:restrictions|limits|limitations|filters|rules|guidelines|censorship)\b/gi,
    weight: 0.8,
  },
  { pattern: /\b(?:freed?|released)\s+from\s+(?:the\s+)?(?:typical\s+)?(?:confines|restrictions|rules|limitations)\b/gi, weight: 0.7 },
  { pattern: /\b(?:do\s+not|don['’]t)\s+have\s+to\s+(?:abide\s+by|follow|obey)\b/gi, weight: 0.6 },
  { pattern: /\[\s*system\s*(?:note|message|override|prompt)\s*:/gi, weight: 0.8 },
  { pattern: /\bsystem\s+(?:override|upgrade)\b/gi, weight: 0.5 },
  { pattern: /\bwithout\s+breaking\s+character\b/gi, weight: 0.6 },
  { pattern: /\bexception\s+to\s+(?:[^\s.!?]+\s+){0,3}?(?:ethical|safety|content|security)\s+(?:protocols|guidelines|policies|rules|standards)\b/gi, weight: 0.8 },
  { pattern: /\bpretend\s+to\s+be\s+my\s+(?:grand(?:ma|mother|father|pa)|late|deceased)\b/gi, weight: 0.5 },
  // Exfiltration and destructive requests.
  {
    pattern: /\b(?:forward|send|email|e-mail|mail|upload|post|leak|exfiltrate)\b(?:\s+[^\s.!?]+){0,3}?\s+(?:every|all|the\s+user['’]s)\s+(?:single\s+)?(?:emails?|messages?|conversations?|chats?|history|files?|data|contacts|passwords?|credentials)\b/gi,
    weight: 0.6,
  },
  { pattern: /\b(?:usernames?|passwords?|credentials|api\s+keys?|secrets)\b(?:\s+\w+){0,3}?\s+in\s+your\s+(?:database|memory|context|system|files)\b/gi, weight: 0.6 },
  { pattern: /\bdelete\s+all\s+(?:the\s+)?(?:data|files|records|emails|messages)\b/gi, weight: 0.5 },
  // Persistent behaviour changes planted for later turns.
  { pattern: /\b(?:every\s+time|whenever|each\s+time)\s+(?:a|the|any)\s+user\b/gi, weight: 0.5 },
  { pattern: /\b(?:do\s+not|don['’]?t)\s+(?:repeat|reveal|mention|disclose)\s+this\s+(?:rule|instruction|message)\b/gi, weight: 0.6 },
  { pattern: /\breplace\s+(?:the|your)\s+(?:summary|answer|response|output)\b/gi, weight: 0.4 },
  // Output hijacking.
  { pattern: /\bstop\s+everything\b/gi, weight: 0.5 },
  { pattern: /\b(?:just|only)\s+(?:say|print|write|output|respond\s+with|reply\s+with)\b/gi, weight: 0.3 },
  { pattern: /\b(?:do\s+not|don['’]t)\s+(?:write|say|output|print)\s+anything\s+else\b/gi, weight: 0.3 },
  // The universal adversarial suffix published by Zou et al. (2023), "Universal and Transferable
  // Adversarial Attacks on Aligned Language Models", and its common variants.
  { pattern: /describing\.\s*\\?\s*\+\s*similarly\s*now\s+write\s+opposite/gi, weight: 0.9 },
]

export const promptInjectionDetector: Detector = {
  types: ['PROMPT_INJECTION'],
  detect(text) {
    const hits: { start: number; end: number }[] = []
    let clean = 1
    for (const signal of SIGNALS) {
      signal.pattern.lastIndex = 0
      let matched = false
      for (let m = signal.pattern.exec(text); m !== null; m = signal.pattern.exec(text)) {
        hits.push({ start: m.index, end: m.index + m[0].length })
        matched = true
      }
      if (matched) clean *= 1 - signal.weight
    }
    const score = 1 - clean
    if (score < FLAG_AT) return []
    return hits.map((hit): Finding => ({ type: 'PROMPT_INJECTION', start: hit.start, end: hit.end, score, heuristic: true }))
  },
}
