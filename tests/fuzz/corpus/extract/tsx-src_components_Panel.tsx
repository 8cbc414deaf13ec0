// Shared pieces of the class components.
import React from 'react';

export class Counter {
  constructor(private readonly n: number) {}

  label(word: string): string {
    return `${this.n} ${word}${this.n === 1 ? '' : 's'}`;
  }
}

export abstract class Panel<P> extends React.Component<P> {
  protected heading(text: string) {
    return <h2 className="panel-heading">{text}</h2>;
  }
}
