<?php

namespace App\Repository;

use App\Model\User;
use PDO;

require_once __DIR__ . '/../bootstrap.php';

const PAGE_SIZE = 50;

interface Repository
{
    public function find(int $id): ?object;
}

/**
 * Loads and stores users in the database.
 */
class UserRepository implements Repository
{
    private PDO $db;

    public function __construct(PDO $db)
    {
        $this->db = $db;
    }

    /**
     * Finds one user by id, or null.
     */
    public function find(int $id): ?User
    {
        $stmt = $this->db->prepare('SELECT * FROM users WHERE id = ?');
        $stmt->execute([$id]);
        $row = $stmt->fetch(PDO::FETCH_ASSOC);
        // TODO: cache users for the length of a request
        return $row ? User::fromRow($row) : null;
    }

    public function save(User $user): void
    {
        if ($user->email === '') {
            throw new \InvalidArgumentException("user {$user->id} has no email address");
        }
        $this->db->prepare('UPDATE users SET email = ? WHERE id = ?')
            ->execute([$user->email, $user->id]);
    }
}

function page_count(int $total): int
{
    return intdiv($total + PAGE_SIZE - 1, PAGE_SIZE);
}
