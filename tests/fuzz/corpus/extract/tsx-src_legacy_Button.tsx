// The button of the first design, still used by the print view.
import React from 'react';

export function Button(props: { text: string }) {
  return <input type="button" value={props.text} />;
}

export function formatTitle(title: string): string {
  return title.toLowerCase();
}
