/** Types of endpoint-groups.cjs (the README's list of endpoint groups). */
export interface EndpointGroup {
  tag: string;
  title: string;
  served: number;
  total: number;
}
export function endpointGroups(routes: ReadonlyArray<{ method: string; path: string }>, sources?: unknown[]): EndpointGroup[];
export function readmeList(groups: EndpointGroup[]): string;
export function readmeSection(readme: string): string | null;
export function withReadmeSection(readme: string, list: string): string;
