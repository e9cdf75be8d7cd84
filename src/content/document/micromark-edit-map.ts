/**
 * Makes micromark's EditMap apply its edits in time proportional to what they
 * move, instead of the length of the event list (imported for this effect by
 * every module that parses Markdown).
 *
 * micromark 4.0.3 closes a container that its flow closes (a block quote
 * ended by a blank line, a nested list item) by moving a few events near the
 * end of the document's event list with an EditMap, whose `consume` rebuilds
 * the whole list: a document of n such containers costs n times its length
 * (12,000 block quotes, 60 KB, took 22 s). micromark 4.0.2 spliced the end of
 * the list instead. `consume` here splices when that moves fewer events than
 * a rebuild copies, the edits being near the end, and rebuilds otherwise
 * (edits spread over the list, as micromark makes for a paragraph's line
 * endings); edits that overlap keep the original's handling. The list it
 * leaves is the same either way. test/content/pathological-markdown.test.ts
 * fails should the module micromark uses stop being this one.
 */
import { EditMap } from 'micromark-util-edit-map';

type Events = Parameters<EditMap['consume']>[0];
/** Above this many items, a splice inserts in slices (spread arguments have a limit). */
const SPLICE_CHUNK = 10_000;

const rebuild = EditMap.prototype.consume;

function spliceEvents(events: Events, at: number, remove: number, add: Events) {
  if (add.length < SPLICE_CHUNK) {
    events.splice(at, remove, ...add);
    return;
  }
  events.splice(at, remove);
  for (let i = 0; i < add.length; i += SPLICE_CHUNK) events.splice(at + i, 0, ...add.slice(i, i + SPLICE_CHUNK));
}

EditMap.prototype.consume = function consume(this: EditMap, events: Events): undefined {
  const map = this.map;
  map.sort((a, b) => a[0] - b[0]);
  // What the splices would move: everything after each edit.
  let moved = 0;
  for (let i = 0; i < map.length; i++) {
    const [at, remove] = map[i]!;
    const next = map[i + 1];
    if (next && at + remove > next[0]) return rebuild.call(this, events);
    moved += events.length - at;
  }
  if (map.length === 0 || moved >= events.length) return rebuild.call(this, events);
  for (let i = map.length - 1; i >= 0; i--) {
    const [at, remove, add] = map[i]!;
    spliceEvents(events, at, remove, add);
  }
  map.length = 0;
  this.index.clear();
  return undefined;
};
