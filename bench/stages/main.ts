import { runStages } from './run';

export const exitCode = await runStages(process.argv.slice(2));
