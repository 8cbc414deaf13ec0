// Structured logging for the runner.
export enum Level {
  Info,
  Error,
}

export function log(message: string, level: Level = Level.Info): void {
  const line = format(message, level);
  console.log(line);
}

function format(message: string, level: Level): string {
  return `[${Level[level]}] ${message}`;
}
