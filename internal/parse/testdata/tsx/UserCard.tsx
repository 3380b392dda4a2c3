import React, { useState } from "react";
import { fetchUser, User } from "../api/users";

interface UserCardProps {
  userId: string;
  compact?: boolean;
}

type LoadState = "idle" | "loading" | "failed";

/**
 * Shows one user's name and avatar, loading them on first render.
 */
export function UserCard({ userId, compact }: UserCardProps) {
  const [user, setUser] = useState<User | null>(null);
  const [state, setState] = useState<LoadState>("idle");

  const load = async () => {
    setState("loading");
    try {
      setUser(await fetchUser(userId));
    } catch (err) {
      // TODO: show the error reason to the user
      console.error("could not load user %s", userId);
      setState("failed");
    }
  };

  if (state === "failed") {
    return <p className="error">Sorry, this user could not be loaded.</p>;
  }
  return (
    <div className={compact ? "card compact" : "card"} onClick={load}>
      <Avatar url={user?.avatarUrl} />
      <span>{user?.name}</span>
    </div>
  );
}

export class Avatar extends React.Component<{ url?: string }> {
  // Falls back to a placeholder when no url is known.
  render() {
    return <img src={this.props.url ?? placeholderUrl()} alt="avatar" />;
  }
}

function placeholderUrl(): string {
  return "/static/avatar-placeholder.png";
}
