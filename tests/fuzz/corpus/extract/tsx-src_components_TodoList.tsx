import React from 'react';

export interface Todo {
  id: number;
  text: string;
  done: boolean;
}

interface Props {
  items: Todo[];
}

export class TodoList extends React.Component<Props> {
  static Item = class extends React.Component<{ todo: Todo }> {
    render() {
      return <li className={this.props.todo.done ? 'done' : ''}>{this.props.todo.text}</li>;
    }
  };

  private visible(): Todo[] {
    return this.props.items.filter((t) => t.text.length > 0);
  }

  render() {
    const items = this.visible();
    return <ul>{items.map((t) => <TodoList.Item key={t.id} todo={t} />)}</ul>;
  }
}
