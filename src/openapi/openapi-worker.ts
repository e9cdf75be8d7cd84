/**
 * The CPU part of processing an OpenAPI specification (./analysis.ts:
 * parsing, validating and checking the `$ref`s of files already fetched) as
 * a task of the worker pool (src/worker-pool.ts), so that a 10 MB document
 * does not hold the event loop; ./process-source.ts runs it.
 */
import { workerTask } from '../worker-pool.ts';
import { analyzeSpecification, type AnalysisInput } from './analysis.ts';

export const analyzeSpecificationTask = workerTask((input: AnalysisInput) => analyzeSpecification(input));
