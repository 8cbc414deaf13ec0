import React from 'react';
import { Button } from './Button';

interface HeaderProps {
  title: string;
  onAdd(text: string): void;
}

export function formatTitle(title: string): string {
  return title.trim().toUpperCase();
}

export function Header({ title, onAdd }: HeaderProps) {
  return (
    <header>
      <h1>{title}</h1>
      <Button label="Add" onClick={() => onAdd(prompt('What?') ?? '')} />
    </header>
  );
}
