import React from 'react';
import { Counter, Panel } from './Panel';

export class Footer extends Panel<{ count: number }> {
  render() {
    const counter = new Counter(this.props.count);
    return <footer>{this.heading(counter.label('item'))}</footer>;
  }
}
