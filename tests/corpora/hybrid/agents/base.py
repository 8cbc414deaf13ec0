"""Agents that run tools and chat."""


class BaseAgent:
    """The base of every agent."""

    def run(self, task):
        """Run one task."""
        return self.step(task)

    def step(self, task):
        return task


class ToolAgent(BaseAgent):
    """An agent that calls tools."""

    def step(self, task):
        return task


class ChatAgent(BaseAgent):
    """An agent that chats."""

    def step(self, task):
        return task


class StreamingChatAgent(ChatAgent):
    """A chat agent that streams its answer."""

    def step(self, task):
        return task
