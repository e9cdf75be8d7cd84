/**
 * Finding the documentation issue of a conversation: whether there is one,
 * its title, details, impact and terms.
 *
 * The decision reads sentences, not the whole text: a sentence signals a
 * documentation problem when it names the documentation (DOC_WORDS, or
 * "documented") and, in the same sentence, says it is faulty (FAULT_WORDS),
 * says it is silent (a negated telling verb, "the docs don't mention",
 * "nothing in the guide", "isn't documented", "I couldn't find it in the
 * docs"), asks for it to change ("you should fix the quickstart", "the page
 * should explain"), or hands it on ("I've raised it with our docs team").
 * Those words say what any documentation problem is, whatever the product.
 * A conversation whose sentences hold none of this yields no issue, however
 * much it talks about documentation that was right ("as described in the
 * guide") or about bugs, incidents and account requests.
 *
 * One issue per conversation at most: the conversations seen are about one
 * problem, and the sentences that name a second one rarely carry words
 * enough to tell the two apart.
 */
import { bodyToPlain, identifierWords, lemmatiseWords, toSentences, type Sentence, type Token } from './text.ts';
import type { Conversation, ConversationRole, ExtractedIssue, Impact, Terms } from './types.ts';

/** Conversations' parts read at most (bounds the work per conversation). */
export const MAX_PARTS = 100;

/**
 * Nouns that name documentation. "page" and "example" are also other things
 * ("the settings page"), which PAGE_NOT_DOCS takes out.
 */
const DOC_WORDS = new Set([
  'doc', 'docs', 'documentation', 'guide', 'page', 'quickstart', 'readme', 'reference', 'tutorial', 'article',
  'example', 'changelog', 'snippet', 'screenshot', 'faq', 'wording', 'instruction', 'walkthrough', 'sample', 'manual',
]);
/**
 * Words around "page" that make it a page of results ("the next page",
 * "page size"), not documentation.
 */
const PAGE_OF_RESULTS_BEFORE = new Set(['next', 'previous', 'more', 'first', 'last', 'each', 'every', 'another', 'single', 'per', 'one', 'this', 'following']);
const PAGE_OF_RESULTS_AFTER = new Set(['size', 'token', 'number', 'limit', 'cursor', 'of']);
/** Words before "page" that make it a screen, not documentation. */
const PAGE_NOT_DOCS = new Set(['status', 'settings', 'setting', 'billing', 'login', 'landing', 'pricing', 'dashboard', 'checkout', 'account', 'profile', 'signup', 'home']);
/** Saying documentation is faulty. */
const FAULT_WORDS = new Set([
  'wrong', 'incorrect', 'outdated', 'stale', 'missing', 'vague', 'unclear', 'confusing', 'confuse', 'misleading', 'mislead',
  'inaccurate', 'inconsistent', 'inconsistency', 'contradict', 'contradictory', 'incomplete', 'ambiguous', 'mistake', 'typo', 'obsolete',
  'undocumented', 'gap', 'lack', 'hard', 'impossible', 'disagree', 'conflict',
]);
/** What documentation does, negated when it does not ("doesn't say", "never mentions", "couldn't find"). */
const TELL_VERBS = new Set(['mention', 'say', 'explain', 'cover', 'document', 'describe', 'show', 'list', 'include', 'tell', 'specify', 'state', 'clarify', 'warn', 'find', 'see', 'locate', 'update']);
/** What someone should do to documentation. */
const FIX_VERBS = new Set(['fix', 'update', 'spell', 'correct', 'add', 'clarify', 'improve', 'change', 'rewrite', 'document', 'mention', 'explain', 'cover', 'remove']);
/** Handing a problem on to whoever writes the documentation. */
const ESCALATE_VERBS = new Set(['raise', 'flag', 'report', 'file', 'pass', 'escalate', 'forward', 'ticket', 'log', 'ask', 'request']);
/** Words that negate without wink's negation flag ("nothing tells me"). */
const NEGATORS = new Set(['no', 'nothing', 'nowhere', 'never', 'none', 'without', 'neither']);
/** Modal words that turn a verb into a request ("should explain", "would be nice if it said"). */
const MODALS = new Set(['should', 'would', 'could', 'must', 'need', 'please', 'might', 'ought']);

/**
 * Impact words (see impactOf). High: someone is blocked, production or
 * customers suffer, a deadline is near. Low: the writer says it is small.
 */
const HIGH_WORDS = new Set([
  'block', 'blocked', 'blocker', 'blocking', 'production', 'prod', 'outage', 'urgent', 'urgently', 'asap', 'critical', 'emergency', 'p1',
  'launch', 'deadline', 'lose', 'lost', 'revenue', 'breach', 'downtime', 'incident',
]);
const LOW_WORDS = new Set(['typo', 'minor', 'cosmetic', 'nitpick', 'curious', 'fyi', 'suggestion', 'tiny', 'trivial', 'quick']);

/**
 * Words every support conversation uses, whatever it is about: greetings,
 * thanks, the documentation words and the verbs of asking. Kept out of an
 * issue's terms so that clusters form around subjects, not around courtesy.
 */
const CONVERSATION_WORDS = new Set([
  'hi', 'hello', 'hey', 'thanks', 'thank', 'thx', 'cheer', 'cheers', 'regard', 'best', 'please', 'sorry', 'apology', 'apologize', 'team', 'support',
  'help', 'question', 'issue', 'problem', 'answer', 'get', 'make', 'work', 'try', 'use', 'need', 'want', 'know', 'look', 'let', 'think', 'ask',
  'good', 'great', 'right', 'sure', 'ok', 'okay', 'yes', 'yeah', 'way', 'thing', 'time', 'today', 'day', 'bit', 'lot', 'point', 'case',
  'go', 'come', 'take', 'give', 'keep', 'seem', 'happen', 'mean', 'wonder', 'check', 'confirm', 'appreciate', 'reach', 'reply', 'folk',
  ...DOC_WORDS, ...FAULT_WORDS, ...TELL_VERBS, ...FIX_VERBS, ...ESCALATE_VERBS,
]);
const CONTENT_POS = new Set(['NOUN', 'PROPN', 'VERB', 'ADJ']);

/** Why a sentence counts as pointing at a documentation problem. */
export type SignalKind = 'fault' | 'silence' | 'request' | 'handover' | 'not-found' | 'citation';

export interface MessageAnalysis {
  role: ConversationRole;
  sentences: Sentence[];
  code: string[];
}

export interface SentenceSignal {
  kind: SignalKind;
  strong: boolean;
  role: ConversationRole;
  /** Index of the message in the conversation. */
  message: number;
  sentence: Sentence;
}

function isDocReference(tokens: Token[], index: number): boolean {
  const token = tokens[index];
  if (token.lemma === 'documentation' || token.lemma === 'undocumented') return true;
  // "a section on multiple domains"; "the Security section" is a screen.
  if (token.lemma === 'section') return ['on', 'about'].includes(tokens[index + 1]?.lemma);
  if (!DOC_WORDS.has(token.lemma) || (token.pos !== 'NOUN' && token.pos !== 'PROPN')) return false;
  if (token.lemma === 'page' || token.lemma === 'example') {
    const previous = tokens[index - 1];
    if (previous && PAGE_NOT_DOCS.has(previous.lemma)) return false;
  }
  if (token.lemma === 'page') {
    const previous = tokens[index - 1];
    const next = tokens[index + 1];
    if ((previous && (PAGE_OF_RESULTS_BEFORE.has(previous.lemma) || previous.type === 'number')) || (next && PAGE_OF_RESULTS_AFTER.has(next.lemma))) return false;
  }
  return true;
}

/**
 * The verb a token is, if it is one: its lemma, or for a verb the tagger took
 * for a noun ("filing") the lemma under its -ing.
 */
function verbOf(token: Token): string | null {
  if (token.pos === 'VERB') return token.lemma;
  if (token.pos === 'NOUN' && token.lemma.endsWith('ing') && token.lemma.length > 5) {
    const stem = token.lemma.slice(0, -3);
    return FIX_VERBS.has(stem) || ESCALATE_VERBS.has(stem) ? stem : `${stem}e`;
  }
  return null;
}

/** Words after a modal that make a wish of documentation ("might be worth a sentence in the docs"). */
const WISH_WORDS = new Set(['worth', 'nice', 'helpful', 'useful', 'good', 'great']);

const isNegated = (tokens: Token[], index: number) =>
  tokens[index].negated || tokens.slice(Math.max(0, index - 3), index).some((token) => NEGATORS.has(token.lemma) || token.lemma === 'not');

/** Telling verbs only text does ("doesn't explain"), unlike a screen ("isn't showing"). */
const TELLING_VERBS = new Set(['mention', 'say', 'explain', 'cover', 'document', 'describe', 'specify', 'clarify', 'warn', 'state']);

/** Verbs of a user quoting the documentation. */
const CITING_VERBS = new Set(['say', 'state', 'claim', 'show', 'tell', 'list', 'mention', 'recommend', 'suggest']);

/** Telling verbs that are the reader looking, not the documentation telling. */
const LOOK_VERBS = new Set(['find', 'see', 'locate']);

/**
 * "didn't see that page": the reader missed the documentation (it is the
 * object of the look), which is not the documentation's fault; "couldn't
 * find anything in the docs" is.
 */
function overlooked(tokens: Token[], index: number): boolean {
  for (let k = index + 1; k < Math.min(tokens.length, index + 4); k++) {
    if (['in', 'on', 'about', 'anything', 'anywhere', 'nothing', 'where', 'how', 'what', 'which'].includes(tokens[k].lemma)) return false;
    if (isDocReference(tokens, k)) return true;
  }
  return false;
}

/** A sentence's signal: what it says, and whether it names the documentation itself (strong) or leans on the conversation doing so (weak). */
export interface Signal {
  kind: SignalKind;
  strong: boolean;
}

/** Fault words that are too common otherwise to count without the documentation named ("older records", "missed that box"). */
const NAMED_FAULT_WORDS = new Set(['old', 'miss']);

/** Whether a fault word at `index` counts: not negated ("nothing wrong"), and "out of date" read as one. */
function faultAt(tokens: Token[], index: number, strong: boolean): boolean {
  const token = tokens[index];
  if (token.type !== 'word') return false;
  const phrase = token.lemma === 'out' && tokens[index + 1]?.lemma === 'of' && tokens[index + 2]?.lemma === 'date';
  if (!phrase && !FAULT_WORDS.has(token.lemma) && !(strong && NAMED_FAULT_WORDS.has(token.lemma))) return false;
  return token.pos === 'VERB' || phrase ? !isNegated(tokens, index) : !token.negated;
}

/** Words before a verb that make it a promise or a thing done by the writer ("I'll", "we've", "will be"). */
const PROMISE_WORDS = new Set(['will', "'ll", 'shall', 'going', 'i', 'we', 'have', "i'm", "i'll", "we'll", "i've", "we've"]);
/** Words after a verb that make its object a person, not a page ("I'll update you", "pass it on to us"). */
const PERSON_OBJECTS = new Set(['you', 'your', 'us', 'me']);

/**
 * A fix or a hand-over someone on the writing side promises or has done
 * ("I'll get it corrected", "I've flagged it"), not an instruction to the
 * user ("you can add the IP"), not a description ("it's explained here"),
 * not news for the user ("I'll update you").
 */
function promisedAt(tokens: Token[], index: number, role: ConversationRole, strong: boolean): boolean {
  if (role === 'user' || isNegated(tokens, index)) return false;
  const before = tokens.slice(Math.max(0, index - 6), index);
  if (before.some((token) => token.lemma === 'you' || token.lemma === 'your')) return false;
  // Without the documentation named, only a promise counts: "I'll get it corrected", "I've asked for it to be added".
  if (!strong && !tokens.slice(Math.max(0, index - 10), index).some((token) => PROMISE_WORDS.has(token.lemma))) return false;
  if (PERSON_OBJECTS.has(tokens[index + 1]?.lemma)) return false;
  // "pass", "forward" and "raise" hand on only with a direction: "pass it along", "raised it with the team" ("we can raise it" is a limit).
  if (['pass', 'forward', 'raise'].includes(tokens[index].lemma)) return tokens.slice(index + 1, index + 4).some((token) => ['along', 'on', 'to', 'with', 'internally'].includes(token.lemma));
  // Verbs that also describe ("it's explained here", "it's covered") are a promise only when promised.
  if (TELL_VERBS.has(tokens[index].lemma) && !tokens.slice(Math.max(0, index - 10), index).some((token) => PROMISE_WORDS.has(token.lemma) || MODALS.has(token.lemma))) return false;
  return true;
}

/** A request the user makes ("maybe update that line", "please document it"). */
function requestedAt(tokens: Token[], index: number): boolean {
  return !isNegated(tokens, index) && tokens.slice(Math.max(0, index - 4), index).some((token) => MODALS.has(token.lemma) || token.lemma === 'maybe');
}

/** The signal a sentence carries, if any (the first that applies, strongest first). */
export function sentenceSignal(sentence: Sentence, role: ConversationRole): Signal | null {
  const tokens = sentence.tokens;
  let docReference = false;
  let documented = -1;
  for (let i = 0; i < tokens.length; i++) {
    if (isDocReference(tokens, i)) docReference = true;
    if (tokens[i].lemma === 'document' || tokens[i].lemma === 'documented') documented = i;
  }
  // "isn't documented", "never documented": no other documentation word needed.
  if (documented >= 0 && isNegated(tokens, documented)) return { kind: 'silence', strong: true };
  const strong = docReference || documented >= 0;
  for (let i = 0; i < tokens.length; i++) if (faultAt(tokens, i, strong)) return { kind: 'fault', strong };
  // "The CLI auth page only covers the interactive login".
  for (let i = 0; i + 1 < tokens.length; i++) if (strong && tokens[i].lemma === 'only' && TELL_VERBS.has(tokens[i + 1].lemma)) return { kind: 'silence', strong };
  for (let i = 0; i < tokens.length; i++) {
    const lemma = tokens[i].lemma;
    if (TELL_VERBS.has(lemma) && isNegated(tokens, i)) {
      if (strong && LOOK_VERBS.has(lemma) && overlooked(tokens, i)) continue;
      if (strong) return { kind: 'silence', strong };
      // Without the documentation named: weak ("it doesn't explain how", "I can't find the option").
      if (LOOK_VERBS.has(lemma) ? role === 'user' : TELLING_VERBS.has(lemma)) return { kind: LOOK_VERBS.has(lemma) ? 'not-found' : 'silence', strong: false };
    }
    // "We don't have examples on that page", "there's no page about it".
    if (isDocReference(tokens, i) && tokens[i].negated && !tokens.slice(Math.max(0, i - 4), i).some((token) => LOOK_VERBS.has(token.lemma))) return { kind: 'silence', strong: true };
    if (strong && NEGATORS.has(lemma)) {
      for (let k = i + 1; k < Math.min(tokens.length, i + 4); k++) if (TELL_VERBS.has(tokens[k].lemma) || isDocReference(tokens, k)) return { kind: 'silence', strong };
    }
  }
  // "is it mentioned anywhere?"
  if (role === 'user' && sentence.text.endsWith('?') && tokens.some((token) => token.lemma === 'anywhere') && tokens.some((token) => TELL_VERBS.has(token.lemma))) {
    return { kind: 'not-found', strong };
  }
  for (let i = 0; i < tokens.length; i++) {
    const token = tokens[i];
    const verb = verbOf(token);
    if (strong && MODALS.has(token.lemma)) {
      // "the reference should say this", "might be worth a sentence in the docs".
      const after = tokens.slice(i + 1, i + 4);
      if (after.some((other) => (other.pos === 'VERB' && (TELL_VERBS.has(other.lemma) || FIX_VERBS.has(other.lemma))) || WISH_WORDS.has(other.lemma)) && !after.some((other) => other.negated)) return { kind: 'request', strong };
    }
    if (!verb) continue;
    if (FIX_VERBS.has(verb)) {
      if (role === 'user' ? requestedAt(tokens, i) : promisedAt(tokens, i, role, strong)) return { kind: 'request', strong };
      if (strong && tokens.slice(i + 1, i + 5).some((_, k) => isDocReference(tokens, i + 1 + k)) && !isNegated(tokens, i)) return { kind: 'request', strong };
    }
    if (ESCALATE_VERBS.has(verb) && promisedAt(tokens, i, role, strong)) return { kind: 'handover', strong };
  }
  if (strong && role === 'user' && sentence.text.endsWith('?') && tokens.some((token) => token.lemma === 'where')) return { kind: 'not-found', strong };
  // The user quoting the documentation ("the Ruby SDK page says 2.7+"): weak, as often the prelude to a mismatch as to a misreading.
  if (docReference && role === 'user' && tokens.some((token, index) => CITING_VERBS.has(token.lemma) && !isNegated(tokens, index))) return { kind: 'citation', strong: false };
  return null;
}

/** Strong signals needed for an issue, or weak ones (in a conversation that names the documentation somewhere). */
export const STRONG_SIGNALS_NEEDED = 1;
export const WEAK_SIGNALS_NEEDED = 2;

/** Whether the signals of a conversation make a documentation issue. */
export function hasDocumentationIssue(signals: SentenceSignal[], mentionsDocumentation: boolean): boolean {
  const strong = signals.filter((signal) => signal.strong).length;
  return strong >= STRONG_SIGNALS_NEEDED || (mentionsDocumentation && signals.length - strong >= WEAK_SIGNALS_NEEDED);
}

/** Whether any sentence names the documentation. */
export function mentionsDocumentation(messages: MessageAnalysis[]): boolean {
  return messages.some((message) => message.sentences.some((sentence) => sentence.tokens.some((_, index) => isDocReference(sentence.tokens, index) || sentence.tokens[index].lemma === 'document')));
}

/** Every message's prose as sentences, and its code. */
export function analyseConversation(conversation: Conversation): MessageAnalysis[] {
  return conversation.parts.slice(0, MAX_PARTS).map((part) => {
    const plain = bodyToPlain(part.body ?? '');
    return { role: part.role, sentences: toSentences(plain.paragraphs), code: plain.code };
  });
}

/** The sentences of a conversation that point at a documentation problem. */
export function documentationSignals(messages: MessageAnalysis[]): SentenceSignal[] {
  const signals: SentenceSignal[] = [];
  messages.forEach((message, index) => {
    for (const sentence of message.sentences) {
      const signal = sentenceSignal(sentence, message.role);
      if (signal) signals.push({ ...signal, role: message.role, message: index, sentence });
    }
  });
  return signals;
}

/** Whether a token is worth counting as what a conversation is about. */
function isContentToken(token: Token): boolean {
  return (
    token.type === 'word' &&
    !token.stop &&
    CONTENT_POS.has(token.pos) &&
    /^[a-z][a-z-]*[a-z]$/.test(token.lemma) &&
    !CONVERSATION_WORDS.has(token.lemma)
  );
}

function addTerm(terms: Terms, term: string, weight: number) {
  terms[term] = (terms[term] ?? 0) + weight;
}

/** The subject counts twice: it is the user's own summary. */
export const SUBJECT_WEIGHT = 2;
/** Words of code and links count half: many are syntax or values, not subject. */
export const CODE_WEIGHT = 0.5;

/**
 * What a conversation is about: the lemmas of its content words (nouns,
 * verbs, adjectives, names; no stop words and no CONVERSATION_WORDS), each
 * pair of neighbouring ones ("rate limit"), and, at half weight, the words
 * of its code and links (CODE_WEIGHT); the subject's count SUBJECT_WEIGHT
 * times.
 */
export function conversationTerms(messages: MessageAnalysis[], subject: Sentence[]): Terms {
  const terms: Terms = {};
  const countSentence = (sentence: Sentence, weight: number) => {
    let previous: string | null = null;
    for (const token of sentence.tokens) {
      if (token.type === 'url') {
        for (const word of lemmatiseWords(identifierWords(token.text.replace(/^[a-z]+:\/\/[^/]+/i, '')))) if (isContentToken({ ...word, pos: 'NOUN' })) addTerm(terms, word.lemma, CODE_WEIGHT);
        previous = null;
        continue;
      }
      if (!isContentToken(token)) {
        // A stop word or punctuation between two words breaks the pair.
        previous = null;
        continue;
      }
      addTerm(terms, token.lemma, weight);
      if (previous && previous !== token.lemma) addTerm(terms, `${previous} ${token.lemma}`, weight);
      previous = token.lemma;
    }
  };
  for (const sentence of subject) countSentence(sentence, SUBJECT_WEIGHT);
  for (const message of messages) {
    for (const sentence of message.sentences) countSentence(sentence, 1);
    const codeWords = lemmatiseWords(message.code.flatMap((code) => identifierWords(code)));
    for (const word of codeWords) if (isContentToken({ ...word, pos: 'NOUN' })) addTerm(terms, word.lemma, CODE_WEIGHT);
  }
  return terms;
}

/**
 * The impact of an issue, from what its users wrote (and the subject): high
 * when a HIGH_WORDS word appears (blocked, production, outage, urgent, a
 * launch or a deadline, something lost); low when a LOW_WORDS word does (a
 * typo, "minor", "quick one", "just curious"); medium otherwise.
 */
export function impactOf(userSentences: Sentence[]): Impact {
  const lemmas = new Set(userSentences.flatMap((sentence) => sentence.tokens.map((token) => token.lemma)));
  const text = userSentences.map((sentence) => sentence.text.toLowerCase()).join(' ');
  if ([...HIGH_WORDS].some((word) => lemmas.has(word)) || /\bgo[- ]live\b/.test(text)) return 'high';
  if ([...LOW_WORDS].some((word) => lemmas.has(word)) || /\b(small thing|no worries|nice to have|not a big deal)\b/.test(text)) return 'low';
  return 'medium';
}

const TITLE_MAX = 90;
const DETAILS_MAX = 600;

/** Text cut at a word boundary, with an ellipsis when cut. */
function clip(text: string, max: number): string {
  if (text.length <= max) return text;
  const cut = text.slice(0, max - 1);
  const space = cut.lastIndexOf(' ');
  return `${(space > max / 2 ? cut.slice(0, space) : cut).replace(/[\s,;:.-]+$/, '')}…`;
}

/** A subject without reply prefixes, or null when it says nothing (empty, one word). */
function usableSubject(subject: string | null | undefined): string | null {
  if (!subject) return null;
  const cleaned = subject.replace(/^\s*((re|fwd?|aw|tr)\s*:\s*)+/i, '').replace(/\s+/g, ' ').trim();
  return cleaned.split(' ').length >= 2 ? cleaned : null;
}

/** The issue of one conversation, or none. */
export function extractIssues(conversation: Conversation): ExtractedIssue[] {
  const messages = analyseConversation(conversation);
  const signals = documentationSignals(messages);
  if (!hasDocumentationIssue(signals, mentionsDocumentation(messages))) return [];
  const subject = usableSubject(conversation.subject);
  const subjectSentences = subject ? toSentences([subject]) : [];
  const userSentences = messages.filter((message) => message.role === 'user').flatMap((message) => message.sentences);
  const firstUserSignal = signals.find((signal) => signal.role === 'user');
  const question = userSentences.find((sentence) => sentence.text.endsWith('?'));
  const title = clip(subject ?? firstUserSignal?.sentence.text ?? question?.text ?? userSentences[0]?.text ?? signals[0].sentence.text, TITLE_MAX);
  // The user's question first (what they were after), then what was found missing or wrong.
  const chosen: string[] = [];
  const opening = question ?? userSentences[0];
  if (opening) chosen.push(opening.text);
  for (const signal of signals) {
    if (chosen.length >= 4) break;
    if (!chosen.includes(signal.sentence.text)) chosen.push(signal.sentence.text);
  }
  return [
    {
      title,
      details: clip(chosen.join(' '), DETAILS_MAX),
      impact: impactOf([...subjectSentences, ...userSentences]),
      terms: conversationTerms(messages, subjectSentences),
    },
  ];
}

/**
 * The terms of an issue another reader wrote (the model engine): its title
 * counted as a subject, its details as a message, the way `conversationTerms`
 * counts a conversation, so that its issues cluster with the default
 * engine's and count in the same corpus.
 */
export function issueTerms(title: string, details: string): Terms {
  const plain = bodyToPlain(details);
  return conversationTerms([{ role: 'user', sentences: toSentences(plain.paragraphs), code: plain.code }], toSentences([title]));
}
