import React, { useState } from 'react';
import { Header } from './components/Header';
import { TodoList, Todo } from './components/TodoList';
import { Footer } from './components/Footer';

export default function App({ title }: { title: string }) {
  const [todos, setTodos] = useState<Todo[]>([]);

  function addTodo(text: string) {
    setTodos([...todos, { id: Date.now(), text, done: false }]);
  }

  return (
    <div className="app">
      <Header title={formatTitle(title)} onAdd={addTodo} />
      <TodoList items={todos} />
      <Footer count={todos.length} />
    </div>
  );
}
