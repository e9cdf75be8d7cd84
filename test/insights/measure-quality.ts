/**
 * Measures the default insights engine on the labelled set:
 * `node --import tsx test/insights/measure-quality.ts [--topics a,b,...]`.
 * Conversations go through in createdAt order, in batches of 50 (as they
 * would arrive) and as one batch (each conversation's first issue is
 * clustered; extraction, which does not depend on batches, runs once); each line says the precision, recall and F1
 * of "has a documentation issue", the adjusted Rand index of the true
 * positives' clusters against their topics, the clusters made, the share of
 * true positives given their labelled impact, and the time per 1,000
 * conversations.
 */
import { extractAll, loadLabelledSet, measureQuality } from './labelled-set.ts';

const topicsArgument = process.argv.indexOf('--topics');
const topics = topicsArgument >= 0 ? process.argv[topicsArgument + 1].split(',') : undefined;
const { conversations, unreadable } = loadLabelledSet(topics);
if (unreadable.length > 0) console.log(`not readable (left out): ${unreadable.join(', ')}`);
const withIssue = conversations.filter((conversation) => conversation.label.hasDocIssue).length;
console.log(`${conversations.length} conversations (${withIssue} with a documentation issue, ${conversations.length - withIssue} without)`);
// A first pass loads the language model and lets the JIT compile the engine, as in a long-lived worker thread; measure after it.
extractAll(conversations);
// Extraction reads one conversation at a time, whatever the batches: done once, timed once, counted in both lines.
const extracted = extractAll(conversations);
for (const [name, size] of [['batches of 50', 50], ['one batch', Infinity]] as const) {
  const quality = measureQuality(extracted, size);
  const round = (value: number) => value.toFixed(3);
  console.log(
    `${name}: topics ${quality.topics}; has issue: precision ${round(quality.precision)}, recall ${round(quality.recall)}, F1 ${round(quality.f1)} ` +
      `(${quality.truePositives} TP, ${quality.falsePositives} FP, ${quality.falseNegatives} FN); ARI ${round(quality.adjustedRandIndex)}, ${quality.clusters} clusters; ` +
      `impact agreement ${round(quality.impactAgreement)}; ${Math.round((quality.milliseconds / quality.conversations) * 1000)} ms per 1,000 conversations`,
  );
}
